import { describe, expect, it } from '@jest/globals';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { ROUTES, buildOpenApiDocument } from '@acs/gateway';

/**
 * Warnings of Redocly's recommended rules this document keeps on purpose. info-license: the
 * platform is not published under a licence, and naming one it does not have would be false.
 */
const ACCEPTED_WARNINGS = ['info-license'];

describe('OpenAPI document lint (Redocly, recommended rules)', () => {
  it('has no errors, and no warnings but the accepted ones', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(buildOpenApiDocument(ROUTES)), absoluteRef: '/openapi.json', config });
    const listed = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} (${p.location[0]?.pointer ?? ''})`);
    expect(listed.filter((p) => p.startsWith('error'))).toEqual([]);
    expect(problems.filter((p) => p.severity === 'warn' && !ACCEPTED_WARNINGS.includes(p.ruleId)).map((p) => p.ruleId)).toEqual([]);
  });
});
