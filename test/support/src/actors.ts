import { randomBytes } from 'node:crypto';
import { expect } from '@jest/globals';
import { loginResponseSchema } from '@acs/contracts';
import { createApiKey } from '@acs/keys-service';
import type { SystemUnderTest } from './system-harness.js';

// The parties of an end-to-end test: applications (API keys) and users (accounts, JWTs).

export type Auth = { key: string; secret: string };
export const PASSWORD = `violet-anvil-${randomBytes(6).toString('hex')}`;

export const json = (body: unknown): RequestInit => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
export const bearer = (token: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` },
});

/** An application key made as an operator would (the keys CLI's code path). */
export async function appKey(sut: SystemUnderTest, scopes: string[]): Promise<Auth> {
  const { apiKey, secret } = await createApiKey(sut.system.keys.deps, { name: 'e2e', scopes, ownerUserId: null, environment: 'test' });
  return { key: apiKey.key, secret };
}

export interface User {
  id: number;
  email: string;
  token: string;
  login(): Promise<{ token: string; body: Record<string, unknown> }>;
}

/** Registers a user through the gateway with `app` (auth:register + auth:login) and logs them in. */
export async function newUser(sut: SystemUnderTest, app: Auth): Promise<User> {
  const email = `e2e-${randomBytes(5).toString('hex')}@Example.com`;
  const registered = await sut.call(
    'POST',
    '/api/Users/Register',
    app,
    json({ email, password: PASSWORD, firstName: 'Ada', lastName: 'Lovelace' }),
  );
  expect(registered.status).toBe(201);
  const { id } = (await registered.json()) as { id: number };
  const login = async () => {
    const res = await sut.call('POST', '/api/Users/Login', app, json({ email, password: PASSWORD }));
    expect(res.status).toBe(200);
    const body = loginResponseSchema.parse(await res.json());
    return { token: body.token, body: body as unknown as Record<string, unknown> };
  };
  return { id, email, token: (await login()).token, login };
}
