import { describe, expect, it } from '@jest/globals';
import { CONTEXT_MEMBERS, contextJson, signContext, verifyContext, type InternalContext } from '../src/index.js';

// contextJson writes the signed context without JSON.stringify walking the object (the gateway's hot path). What
// a service parses must be exactly what JSON.stringify would have given it, for every member there is.
const everyMember: InternalContext = {
  requestId: 'req "quoted" \\ back\nslash \u0001 é 😀',
  keyId: 'b1f7f3f2-3c1e-4a57-9a0e-4f4f0b2a6c11',
  scopes: ['read:devices', 'odd "scope"\\'],
  userId: 123456,
  emailUnverified: true,
  sessionId: 'sess\u2028ion',
  role: 2,
  planType: 0,
  clientIp: '2001:db8::1',
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  tracestate: 'acs=1,other="x"',
  expiresAt: 1795797951,
};

const parsedBoth = (context: Omit<InternalContext, 'expiresAt'>, expiresAt: number) => [
  JSON.parse(contextJson(context, expiresAt)),
  JSON.parse(JSON.stringify({ ...context, expiresAt })),
];

describe('the context as JSON', () => {
  it('writes every member of InternalContext as JSON.stringify would, escaping included', () => {
    const { expiresAt, ...context } = everyMember;
    const [ours, reference] = parsedBoth(context, expiresAt);
    expect(ours).toEqual(reference);
    // Every member the type has is written (CONTEXT_MEMBERS is typed against InternalContext).
    expect(Object.keys(ours).sort()).toEqual(Object.keys(CONTEXT_MEMBERS).sort());
  });

  it('leaves absent members out, writes a null key id, and ignores an expiresAt in the context', () => {
    const context = { requestId: 'r1', keyId: null, scopes: [] as string[], expiresAt: 1 } as Omit<InternalContext, 'expiresAt'>;
    const [ours, reference] = parsedBoth(context, 99);
    expect(ours).toEqual(reference);
    expect(ours).toEqual({ requestId: 'r1', keyId: null, scopes: [], expiresAt: 99 });
    const withFalse = { requestId: 'r2', keyId: 'k', scopes: ['a'], emailUnverified: false, userId: 7 };
    expect(JSON.parse(contextJson(withFalse, 5))).toEqual({ ...withFalse, expiresAt: 5 });
  });

  it('keeps writing a list of scopes as it is when the same list is signed again (the JSON is kept per list)', () => {
    const scopes = ['read:devices'];
    expect(JSON.parse(contextJson({ requestId: 'a', keyId: 'k', scopes }, 1)).scopes).toEqual(['read:devices']);
    expect(JSON.parse(contextJson({ requestId: 'b', keyId: 'k', scopes }, 1)).scopes).toEqual(['read:devices']);
    expect(JSON.parse(contextJson({ requestId: 'c', keyId: 'k', scopes: ['other'] }, 1)).scopes).toEqual(['other']);
  });

  it('signs a context that verifies to every member', () => {
    const { expiresAt: _ignored, ...context } = everyMember;
    const signed = signContext('a-key-of-at-least-thirty-two-characters-0', 'catalog', 'GET', '/api/Dac', context, 1000);
    const verified = verifyContext(
      'a-key-of-at-least-thirty-two-characters-0',
      'catalog',
      'GET',
      '/api/Dac',
      signed.context,
      signed.signature,
      1000,
    );
    expect(verified).toEqual({ ...context, expiresAt: 1015 });
  });
});
