import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ASSIGNABLE_SCOPES, grantsScope } from '@acs/auth';
import { SPEC_ERRORS } from '@acs/errors';
import { ROUTES, type RouteSpec } from '@acs/gateway';
import { appKey, bearer, newUser, type Auth, type User } from './actors.js';
import { startSystemUnderTest, type SystemUnderTest } from './system-harness.js';

// Every route of the gateway's table gets the same three refusals, so a route added or changed
// later is covered without anyone remembering to list it (the spirit of a shared "common route
// tests" helper). The refusals come before any service is asked, so the bodies are the spec's own.

// The spec's error and message word for word; our code beside them says which refusal it is.
const MISSING = { error: SPEC_ERRORS.missingApiKey.error, message: SPEC_ERRORS.missingApiKey.message, code: 'missing_credentials' };
const INVALID = { ...MISSING, code: 'invalid_credentials' };
const SCOPE = { error: SPEC_ERRORS.insufficientScope.error, message: SPEC_ERRORS.insufficientScope.message, code: 'missing_scope' };
const USER = { error: SPEC_ERRORS.insufficientUser.error, message: SPEC_ERRORS.insufficientUser.message, code: 'token_required' };
const NO_SUBSCRIPTION = { ...USER, code: 'subscription_required' };

let sut: SystemUnderTest;
/** A Free user (no trial), so every route that needs a role above Free refuses them. */
let freeUser: User;
/** One key per assignable scope, and one with the system scope. */
const keyWith = new Map<string, Auth>();

/** A concrete URL for the route: its `{id}` parameters filled with a plausible value. */
const urlOf = (route: RouteSpec): string => route.path.replace(/\{[^}]+\}/g, '1');
const withBody = (route: RouteSpec, init: RequestInit = {}): RequestInit =>
  route.method === 'GET' || route.method === 'DELETE'
    ? init
    : { ...init, headers: { ...(init.headers as Record<string, string>), 'content-type': 'application/json' }, body: '{}' };

async function expectRefusal(
  res: Response,
  status: number,
  body: { error: string; message: string; code: string },
): Promise<Record<string, unknown>> {
  const json = (await res.json()) as Record<string, unknown>;
  expect({ status: res.status, error: json.error, message: json.message, code: json.code }).toEqual({ status, ...body });
  expect(json.hint).toEqual(expect.any(String));
  return json;
}

beforeAll(async () => {
  sut = await startSystemUnderTest({ TRIAL_DURATION_SECONDS: '0' });
  for (const scope of ASSIGNABLE_SCOPES) keyWith.set(scope, await appKey(sut, [scope]));
  keyWith.set('system:full-access', await appKey(sut, ['system:full-access']));
  freeUser = await newUser(sut, await appKey(sut, ['auth:register', 'auth:login']));
}, 60_000);
afterAll(async () => {
  await sut?.stop();
});

describe.each(ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))('%s', (_name, route) => {
  const rightKey = (): Auth => keyWith.get(route.scope)!;

  it('without a key: 401 with the spec body', async () => {
    await expectRefusal(await sut.call(route.method, urlOf(route), null, withBody(route)), 401, MISSING);
  });

  it('with a wrong secret or an unknown key: 401 with the spec body, and the same hint for both', async () => {
    const wrongSecret = await expectRefusal(
      await sut.call(route.method, urlOf(route), { ...rightKey(), secret: `${rightKey().secret}x` }, withBody(route)),
      401,
      INVALID,
    );
    const unknownKey = await expectRefusal(
      await sut.call(route.method, urlOf(route), { ...rightKey(), key: `${rightKey().key.slice(0, -4)}AAAA` }, withBody(route)),
      401,
      INVALID,
    );
    expect(unknownKey.hint).toBe(wrongSecret.hint);
  });

  it('with every key whose scopes do not grant it: 403 with the scope body', async () => {
    const wrong = [...keyWith.entries()].filter(([scope]) => !grantsScope([scope], route.scope));
    expect(wrong.length).toBeGreaterThan(0);
    const opening = ASSIGNABLE_SCOPES.filter((scope) => grantsScope([scope], route.scope));
    for (const [, auth] of wrong) {
      const body = await expectRefusal(
        await sut.call(route.method, urlOf(route), auth, bearer(freeUser.token, withBody(route))),
        403,
        SCOPE,
      );
      for (const scope of opening) expect(body.hint).toContain(scope);
    }
  });

  if (route.user.kind === 'user') {
    const { minRole } = route.user;
    it('with the right key but no user JWT: 403 with the user body', async () => {
      await expectRefusal(await sut.call(route.method, urlOf(route), rightKey(), withBody(route)), 403, USER);
      await expectRefusal(await sut.call(route.method, urlOf(route), rightKey(), bearer('not.a.jwt', withBody(route))), 403, USER);
    });
    if (minRole > 0) {
      it(`with the right key and a user below role ${minRole}: 403 with the user body`, async () => {
        // A Free user without a trial: role 0 because no subscription is active, which is what would raise it.
        await expectRefusal(
          await sut.call(route.method, urlOf(route), rightKey(), bearer(freeUser.token, withBody(route))),
          403,
          NO_SUBSCRIPTION,
        );
      });
    }
  }
});
