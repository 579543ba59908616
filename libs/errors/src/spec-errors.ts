import { AppError } from './app-error.js';

/**
 * The contract's exact 401/403 bodies (service-interface.md, "Errors"). Used verbatim:
 * client apps match on these strings.
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

export const missingApiKeyError = (): AppError =>
  new AppError('unauthorized', SPEC_ERRORS.missingApiKey.error, SPEC_ERRORS.missingApiKey.message);
export const insufficientScopeError = (): AppError =>
  new AppError('forbidden', SPEC_ERRORS.insufficientScope.error, SPEC_ERRORS.insufficientScope.message);
export const insufficientUserError = (): AppError =>
  new AppError('forbidden', SPEC_ERRORS.insufficientUser.error, SPEC_ERRORS.insufficientUser.message);
