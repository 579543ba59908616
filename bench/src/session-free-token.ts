import { generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';

/*
 * Issue 32's session check costs a request only when its token names a session (`sid`). To measure that
 * cost the bench needs the same user's token without one, as identity issued before sessions: it gives
 * identity a signing key of its own (JWT_SIGNING_KEY), then re-signs identity's token without `sid`.
 */

export interface BenchSigningKey {
  /** JWT_SIGNING_KEY for identity: a private Ed25519 JWK with a kid. */
  jwk: string;
  kid: string;
  privateKey: KeyObject;
}

export function benchSigningKey(): BenchSigningKey {
  const { privateKey } = generateKeyPairSync('ed25519');
  const kid = `bench-${randomUUID()}`;
  return { jwk: JSON.stringify({ ...privateKey.export({ format: 'jwk' }), kid }), kid, privateKey };
}

/** The token's claims, `sid` removed, signed again with the same key: the gateway accepts it as a pre-session token. */
export function withoutSession(token: string, key: BenchSigningKey): string {
  const { sid: _sid, ...claims } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: 'EdDSA', kid: key.kid, typ: 'JWT' })}.${part(claims)}`;
  return `${input}.${sign(null, Buffer.from(input), key.privateKey).toString('base64url')}`;
}

/** Whether the token names a session: a checkout from before sessions issues none. */
export function hasSession(token: string): boolean {
  return 'sid' in (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as object);
}
