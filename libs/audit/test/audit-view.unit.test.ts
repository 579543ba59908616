import { describe, expect, it } from '@jest/globals';
import { auditView } from '../src/audit-view.js';

describe('auditView', () => {
  it('keeps only the named fields, in their order, with dates as ISO text and nulls kept', () => {
    const record = { name: 'k', secretHash: 'never', expiresAt: new Date(Date.UTC(2030, 0, 2)), revokedAt: null, scopes: ['a'] };
    const view = auditView(record, ['name', 'expiresAt', 'revokedAt', 'scopes']);
    expect(view).toEqual({ name: 'k', expiresAt: '2030-01-02T00:00:00.000Z', revokedAt: null, scopes: ['a'] });
    expect(Object.keys(view)).toEqual(['name', 'expiresAt', 'revokedAt', 'scopes']);
    expect(view).not.toHaveProperty('secretHash');
  });
});
