import { type Endpoint, OWN_ACCOUNT } from '../endpoint.js';
import { sessionViewSchema } from '../sessions.js';

export const endSessionEndpoint = {
  operationId: 'endSession',
  method: 'DELETE',
  path: '/api/Sessions/{id}',
  ...OWN_ACCOUNT,
  summary: 'End one session (sign it out)',
  description:
    'Its token is refused on its next request through every gateway replica (401, code session_ended), whatever its exp. Ending the ' +
    "calling token's own session signs it out. Ending an ended session answers the same. Someone else's session gives 404.",
  pathParameters: {
    id: {
      description: "id of the session (12 base64url characters; any other value, or someone else's session, answers 404)",
      schema: { type: 'string' },
    },
  },
  success: { status: 200, description: 'The ended session', schema: sessionViewSchema },
  errors: { 404: 'No such session of this user' },
} satisfies Endpoint;
