import { describe, expect, it } from '@jest/globals';
import { ROLE } from '@acs/contracts';
import { AppError, SPEC_ERRORS } from '@acs/errors';
import { requireCaller, type AppContext } from '@acs/http';
import type { InternalContext } from '@acs/auth';

const contextOf = (caller: Partial<InternalContext> | undefined): AppContext =>
  ({ state: { caller: caller && { requestId: 'r', keyId: 'k', scopes: [], expiresAt: 0, ...caller } } }) as unknown as AppContext;

function refusal(run: () => unknown): unknown {
  try {
    run();
  } catch (err) {
    return err instanceof AppError ? { status: err.status, error: err.title, message: err.message } : err;
  }
  return 'no refusal';
}

const USER_REFUSAL = { status: 403, error: SPEC_ERRORS.insufficientUser.error, message: SPEC_ERRORS.insufficientUser.message };

describe('requireCaller', () => {
  it('answers the signed-in user and their role', () => {
    expect(requireCaller(contextOf({ userId: 7, role: ROLE.free }))).toEqual({ userId: 7, role: ROLE.free });
    expect(requireCaller(contextOf({ userId: 7, role: ROLE.admin }), { minRole: ROLE.subscriber })).toEqual({
      userId: 7,
      role: ROLE.admin,
    });
  });

  it('refuses with the spec 403 when there is no user, or no role, or a role below the minimum', () => {
    expect(refusal(() => requireCaller(contextOf(undefined)))).toEqual(USER_REFUSAL);
    expect(refusal(() => requireCaller(contextOf({})))).toEqual(USER_REFUSAL);
    expect(refusal(() => requireCaller(contextOf({ userId: 7 })))).toEqual(USER_REFUSAL);
    expect(refusal(() => requireCaller(contextOf({ userId: 7, role: ROLE.free }), { minRole: ROLE.subscriber }))).toEqual(USER_REFUSAL);
    expect(refusal(() => requireCaller(contextOf({ userId: 7, role: ROLE.subscriber }), { minRole: ROLE.admin }))).toEqual(USER_REFUSAL);
  });

  it('refuses a user id no account can have', () => {
    for (const userId of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1])
      expect(refusal(() => requireCaller(contextOf({ userId, role: ROLE.admin })))).toEqual(USER_REFUSAL);
  });
});
