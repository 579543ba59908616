import { AppError } from './app-error.js';

/**
 * The contract's exact 401/403 bodies (docs/api-contract.md, "Errors"). `error` and `message` are used
 * verbatim: client apps match on these strings. `code` and `hint` are ours, beside them.
 */
export const SPEC_ERRORS = {
  missingApiKey: {
    status: 401,
    error: 'Missing authentication headers',
    message: 'Both X-Api-Key and X-Api-Secret headers are required',
  },
  insufficientScope: {
    status: 403,
    error: 'Insufficient permissions',
    message: 'Your API key does not have the required scope',
  },
  insufficientUser: {
    status: 403,
    error: 'Insufficient permissions',
    message: 'A valid user JWT with sufficient role is required',
  },
} as const;

/** The 401 when a header is missing: the hint names what to send. */
export const missingApiKeyError = (): AppError =>
  new AppError('unauthorized', SPEC_ERRORS.missingApiKey.error, SPEC_ERRORS.missingApiKey.message, {
    code: 'missing_credentials',
    hint: 'Send your API key in X-Api-Key and its secret in X-Api-Secret.',
  });

/**
 * The 401 when both headers were sent but do not open anything. Deliberately neutral: it never says
 * whether the key is unknown, revoked or expired, or the secret does not match.
 */
export const invalidCredentialsError = (): AppError =>
  new AppError('unauthorized', SPEC_ERRORS.missingApiKey.error, SPEC_ERRORS.missingApiKey.message, {
    code: 'invalid_credentials',
    hint: 'The API key is unknown, revoked or expired, or the secret does not match it. Check both values, or create a new key.',
  });

/** The scope 403; `requiredScopes` are the scopes any one of which would open the endpoint. */
export const insufficientScopeError = (requiredScopes: readonly string[] = []): AppError =>
  new AppError('forbidden', SPEC_ERRORS.insufficientScope.error, SPEC_ERRORS.insufficientScope.message, {
    code: 'missing_scope',
    ...(requiredScopes.length > 0
      ? { hint: `This endpoint needs a key with the scope ${requiredScopes.join(' or ')}.` }
      : { hint: 'This endpoint needs a scope your key does not have.' }),
  });

/** Why the user requirement refused a request: no usable token, or a role below the endpoint's. */
export type UserRefusal = 'token_required' | 'role_too_low' | 'subscription_required';

const USER_HINTS: Record<UserRefusal, string> = {
  token_required: 'Send a current user token as Authorization: Bearer <jwt> (from POST /api/Users/Login).',
  role_too_low: 'Your account role is below what this endpoint needs.',
  subscription_required: 'This endpoint needs an active subscription or trial: subscribe to a plan (POST /api/Subscriptions).',
};

/** The user 403 (missing or bad JWT, or a role too low), with a code that says which and a hint that says what raises it. */
export const insufficientUserError = (reason: UserRefusal = 'token_required'): AppError =>
  new AppError('forbidden', SPEC_ERRORS.insufficientUser.error, SPEC_ERRORS.insufficientUser.message, {
    code: reason,
    hint: USER_HINTS[reason],
  });

/**
 * The 403 when the key's owner limits the addresses it may be used from (its ipAllowList, issue 31.3) and the
 * client's address (X-Forwarded-For from trusted proxies only) is outside them. Not one of the spec's bodies.
 */
export const ipNotAllowedError = (): AppError =>
  new AppError('forbidden', 'Address not allowed', 'This API key may not be used from your address', {
    code: 'ip_not_allowed',
    hint: "The key's owner limits the addresses it can be used from (its ipAllowList): call from one of them, or ask the owner to add yours.",
  });
