import { userInfo } from 'node:os';
/** Who made a change: a signed-in user (through the API), an operator (a CLI), or the system itself (a consumer, a start-up seed). */
export type ActorType = 'user' | 'operator' | 'system';

export interface AuditActor {
  type: ActorType;
  /** The user id for a user, the operator's login name for an operator, the component for the system. */
  id: string | null;
  /** The request that made the change (the gateway's X-Request-Id), when there was one. */
  requestId: string | null;
  /** The client's address as the gateway saw it, when there was a request. */
  clientAddress: string | null;
}

/** What changed. `before` and `after` are plain views built by the service: never a secret or a hash. */
export interface AuditChange {
  action: string;
  targetType: string;
  targetId: string;
  /** Whose trail the entry is in (the owner of the key, the account, the subscriber); null: none (a system key). */
  userId: number | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** A stored entry. */
export interface AuditEntry extends AuditChange {
  id: number;
  service: string;
  occurredAt: Date;
  actor: AuditActor;
  prevHash: string;
  hash: string;
  /** Its personal data was erased (an account deletion): verify checks it against the digest its `audit.erased` entry lists. */
  erased: boolean;
}

/** The system acting on its own (no request): a consumer, a seed, a scheduled job. */
export const systemActor = (component: string): AuditActor => ({ type: 'system', id: component, requestId: null, clientAddress: null });

/** An operator at a CLI: named by their login on the machine that ran it, and the tool ("alice via keys cli"). */
export function operatorActor(tool: string): AuditActor {
  let login = 'unknown';
  try {
    login = userInfo().username;
  } catch {
    // No passwd entry (some containers): the tool alone still says it was an operator.
  }
  return { type: 'operator', id: `${login} via ${tool}`, requestId: null, clientAddress: null };
}

/** The signed-in user of a request, with its id and the client address the gateway signed (a service's ctx.state fits). */
export function userActor(request: {
  requestId: string;
  caller?: { userId?: number | undefined; clientIp?: string | undefined } | undefined;
}): AuditActor {
  const userId = request.caller?.userId;
  return {
    type: 'user',
    id: userId === undefined ? null : String(userId),
    requestId: request.requestId,
    clientAddress: request.caller?.clientIp ?? null,
  };
}
