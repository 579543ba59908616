/**
 * AMQP topic matching, as RabbitMQ does it, so the in-process bus routes exactly like the broker:
 * words are separated by `.`, `*` matches exactly one word, `#` matches zero or more words, and
 * an empty routing key has no words at all.
 */
export function topicMatches(pattern: string, routingKey: string): boolean {
  return matchFrom(words(pattern), 0, words(routingKey), 0);
}

function words(key: string): string[] {
  return key === '' ? [] : key.split('.');
}

function matchFrom(pattern: string[], p: number, key: string[], k: number): boolean {
  if (p === pattern.length) return k === key.length;
  const word = pattern[p];
  if (word === '#') {
    // Try every number of words for `#`; keys and patterns are a handful of words, so plain
    // backtracking is cheap enough.
    for (let next = k; next <= key.length; next += 1) {
      if (matchFrom(pattern, p + 1, key, next)) return true;
    }
    return false;
  }
  if (k === key.length) return false;
  return (word === '*' || word === key[k]) && matchFrom(pattern, p + 1, key, k + 1);
}
