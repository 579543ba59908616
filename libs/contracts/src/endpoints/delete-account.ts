import { type Endpoint, OWN_ACCOUNT_FORM } from '../endpoint.js';
import { deleteAccountRequestSchema, deleteAccountResponseSchema } from '../account-deletion.js';

export const deleteAccountEndpoint = {
  operationId: 'deleteAccount',
  method: 'DELETE',
  path: '/api/Users/Me',
  ...OWN_ACCOUNT_FORM,
  summary: "Delete the signed-in user's account (account dashboard)",
  description:
    'Needs the current password, and the current two-factor code when two-factor sign-in is on. The e-mail address, names, password ' +
    'hash, two-factor secret, recovery codes and pending links are erased and every session ends (the tokens answer 401 ' +
    'session_ended on their next request); the audit trail keeps its entries without personal data. Then, through the bus ' +
    '(user.deleted.v1): billing ends the subscriptions, keys revokes every key of the user, device erases the devices. A wrong ' +
    'password is 401 invalid_login (counted as a failed sign-in); a missing or wrong code is 401 invalid_two_factor_code. Nothing ' +
    'changes when either is refused.',
  requestBody: deleteAccountRequestSchema,
  success: { status: 200, description: 'Deleted', schema: deleteAccountResponseSchema },
  errors: {
    400: 'Invalid body',
    401: 'The password or the two-factor code is wrong',
    429: 'Too many failed attempts; see Retry-After',
  },
} satisfies Endpoint;
