import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, importJWK, CompactSign, compactVerify, type CryptoKey } from 'jose';
import { JWT_ALGORITHM } from '@acs/contracts';
import type { Logger } from '@acs/logger';
import { privateSigningJwkSchema, toPublishedJwk, type PrivateSigningJwk, type PublicVerificationJwk, type PublishedJwk } from './jwk.js';

const SIGNING_KEY_FILE = 'jwt-signing-key.json';

export interface JwtSigner {
  kid: string;
  privateKey: CryptoKey;
  /** The JWKS document: the current key first, then the keys kept for rotation. */
  jwks: { keys: PublishedJwk[] };
}

export interface SigningKeySource {
  /** JWT_SIGNING_KEY; unset: the key file under DATA_DIR/identity (generated on first start). */
  signingKey?: PrivateSigningJwk | undefined;
  verificationKeys?: PublicVerificationJwk[] | undefined;
  dataDir: string;
}

/** e.g. `2026-05-04.q7Yb2LkN`: sortable by creation day, unique by the random part. */
const newKid = (): string => `${new Date().toISOString().slice(0, 10)}.${randomBytes(6).toString('base64url')}`;

async function generateSigningJwk(): Promise<PrivateSigningJwk> {
  const { privateKey } = await generateKeyPair(JWT_ALGORITHM, { extractable: true });
  return privateSigningJwkSchema.parse({ ...(await exportJWK(privateKey)), kid: newKid() });
}

/** The key file's key, or null when there is no file yet. A file that is not a key stops the start. */
async function readKeyFile(file: string, logger: Logger): Promise<PrivateSigningJwk | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`Cannot read the JWT signing key ${file}: ${(err as Error).message}`, { cause: err });
  }
  if (((await stat(file)).mode & 0o077) !== 0) {
    await chmod(file, 0o600);
    logger.warn({ file }, 'the JWT signing key file was readable by others; its mode is now 0600');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const result = privateSigningJwkSchema.safeParse(parsed);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => [issue.path.join('.'), issue.message].filter(Boolean).join(': ')).join('; ');
    throw new Error(
      `${file} does not hold a private Ed25519 JWK with a kid (${problems}). Restore it, or delete it to generate a new key (tokens signed with the old key then stop verifying).`,
    );
  }
  return result.data;
}

/**
 * The embedded mode's key: DATA_DIR/identity/jwt-signing-key.json, created on the first start
 * (mode 0600, and never over an existing file: two processes starting together share one key).
 */
async function keyFromDataDir(dataDir: string, logger: Logger): Promise<PrivateSigningJwk> {
  const dir = join(dataDir, 'identity');
  const file = join(dir, SIGNING_KEY_FILE);
  const existing = await readKeyFile(file, logger);
  if (existing) return existing;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const generated = await generateSigningJwk();
  try {
    await writeFile(file, `${JSON.stringify(generated, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return (await readKeyFile(file, logger))!;
  }
  logger.info({ kid: generated.kid, file }, 'generated a JWT signing key (set JWT_SIGNING_KEY to manage keys yourself)');
  return generated;
}

/** Proves that `d` and `x` belong together: a mismatch would sign tokens nobody can verify. */
async function assertKeyPair(privateKey: CryptoKey, jwk: PrivateSigningJwk): Promise<void> {
  const probe = await new CompactSign(new TextEncoder().encode('acs key check'))
    .setProtectedHeader({ alg: JWT_ALGORITHM })
    .sign(privateKey);
  const publicKey = await importJWK({ kty: jwk.kty, crv: jwk.crv, x: jwk.x }, JWT_ALGORITHM);
  await compactVerify(probe, publicKey).catch(() => {
    throw new Error(`The JWT signing key ${jwk.kid} is unusable: its public part "x" must belong to its private part "d"`);
  });
}

/** Loads (or, in the embedded mode, creates) the signing key and builds the JWKS. Fails the start on any inconsistency. */
export async function loadSigner(source: SigningKeySource, logger: Logger): Promise<JwtSigner> {
  const jwk = source.signingKey ?? (await keyFromDataDir(source.dataDir, logger));
  const privateKey = await importJWK({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, d: jwk.d }, JWT_ALGORITHM).catch((err: unknown) => {
    // Node's WebCrypto already refuses an x that is not d's public key; say which key and why.
    throw new Error(
      `The JWT signing key ${jwk.kid} is unusable (${(err as Error).message}): its public part "x" must belong to its private part "d"`,
      { cause: err },
    );
  });
  await assertKeyPair(privateKey, jwk);
  const keys = [toPublishedJwk(jwk)];
  for (const old of source.verificationKeys ?? []) {
    const same = keys.find((key) => key.kid === old.kid);
    if (same && same.x !== old.x) throw new Error(`JWT_VERIFICATION_KEYS: two different keys have the kid "${old.kid}"`);
    if (!same) {
      await importJWK(old, JWT_ALGORITHM); // a point that is not on the curve fails here, not in the gateway
      keys.push(toPublishedJwk(old));
    }
  }
  return { kid: jwk.kid, privateKey, jwks: { keys } };
}
