import { z } from 'zod';
import { JWT_ALGORITHM } from '@acs/contracts';

// Ed25519 keys as JWKs (RFC 8037): `x` is the 32-byte public key, `d` the 32-byte private one,
// both base64url without padding (43 characters).
const KEY_BYTES_32 = /^[A-Za-z0-9_-]{43}$/;
/** Short and plain: the kid travels in every token header and names the key in logs. */
const KID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

const publicFields = {
  kty: z.literal('OKP', { error: 'expected kty "OKP" (an Ed25519 key)' }),
  crv: z.literal('Ed25519', { error: 'expected crv "Ed25519"' }),
  x: z.string().regex(KEY_BYTES_32, 'expected x: 32 bytes, base64url'),
  kid: z.string({ error: 'expected a kid' }).regex(KID_PATTERN, 'expected a kid of 1-64 letters, digits, ".", "_" or "-"'),
  alg: z.literal(JWT_ALGORITHM, { error: `expected alg "${JWT_ALGORITHM}" or none` }).optional(),
  use: z.literal('sig', { error: 'expected use "sig" or none' }).optional(),
};

/** JWT_SIGNING_KEY and the generated key file: a private Ed25519 JWK with a kid. Other members are dropped. */
export const privateSigningJwkSchema = z
  .object({
    ...publicFields,
    d: z.string({ error: 'expected d, the private part' }).regex(KEY_BYTES_32, 'expected d: 32 bytes, base64url'),
  })
  .transform(({ kty, crv, x, d, kid }) => ({ kty, crv, x, d, kid }));
export type PrivateSigningJwk = z.output<typeof privateSigningJwkSchema>;

/** One entry of JWT_VERIFICATION_KEYS: a public key kept for rotation. A private part is refused, not dropped. */
export const publicVerificationJwkSchema = z
  .looseObject(publicFields)
  .refine((jwk) => jwk.d === undefined, { message: 'expected a public key: remove "d" (the private part) from the verification keys' })
  .transform(({ kty, crv, x, kid }) => ({ kty, crv, x, kid }));
export type PublicVerificationJwk = z.output<typeof publicVerificationJwkSchema>;

/** What the JWKS document lists per key. */
export interface PublishedJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: typeof JWT_ALGORITHM;
  use: 'sig';
}

export const toPublishedJwk = ({ kty, crv, x, kid }: PublicVerificationJwk): PublishedJwk => ({
  kty,
  crv,
  x,
  kid,
  alg: JWT_ALGORITHM,
  use: 'sig',
});
