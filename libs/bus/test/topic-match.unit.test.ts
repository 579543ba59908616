import { describe, expect, it } from '@jest/globals';
import { topicMatches } from '@acs/bus';
import { TOPIC_CASES } from './topic-cases.js';

describe('topicMatches', () => {
  it.each(TOPIC_CASES)('%s against "%s" is %s', (pattern, key, expected) => {
    expect(topicMatches(pattern, key)).toBe(expected);
  });
});
