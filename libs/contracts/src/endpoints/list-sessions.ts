import { type Endpoint, OWN_ACCOUNT } from '../endpoint.js';
import { sessionListSchema } from '../sessions.js';

export const listSessionsEndpoint = {
  operationId: 'listSessions',
  method: 'GET',
  path: '/api/Sessions',
  ...OWN_ACCOUNT,
  summary: "List the user's sessions (account dashboard)",
  description:
    'Every sign-in is a session, named by the `sid` claim of its token. Lists the live ones (not ended, token not expired), newest first, ' +
    "with a device label from the sign-in's User-Agent, its address, and `current` on the session of the calling token.",
  success: { status: 200, description: 'The live sessions', schema: sessionListSchema },
} satisfies Endpoint;
