import type { Scope } from '@acs/auth';
import { ENDPOINTS, type Endpoint, type ServiceName, type UserRequirement } from '@acs/contracts';

export { SERVICES, type ServiceName, type UserRequirement } from '@acs/contracts';

/** What the gateway needs of an operation per request; the rest of its contract is for the document and the service. */
export interface RouteSpec {
  method: Endpoint['method'];
  /** As the contract writes it (case-sensitive); `{name}` marks a path parameter. */
  path: string;
  scope: Scope;
  user: UserRequirement;
  upstream: ServiceName;
  /** The operation's contract (libs/contracts/src/endpoints), for the OpenAPI document. */
  operationId: string;
}

/**
 * Every public operation, from its contract file (docs/architecture.md, decision 11). A new
 * operation is a new file in libs/contracts/src/endpoints, never a row here.
 */
export const ROUTES: readonly RouteSpec[] = ENDPOINTS.map(({ method, path, scope, user, upstream, operationId }) => ({
  method,
  path,
  scope,
  user,
  upstream,
  operationId,
}));
