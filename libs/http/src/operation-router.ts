import type { Router } from '@koa/router';
import { z } from 'zod';
import type { Endpoint } from '@acs/contracts';
import { readJsonBody } from './json-body.js';
import { requireCaller, type UserCaller } from './require-caller.js';
import type { AppContext, AppState } from './types.js';
import { parseInput, parseQuery } from './validate.js';

type Parsed<S> = S extends z.ZodType ? z.infer<S> : undefined;

/** What the contract lets a handler rely on: the caller it requires, and the input it parsed. */
export interface OperationInput<E extends Endpoint> {
  /** The signed-in user, when the operation requires one (its role already checked against the contract's minimum). */
  caller: E['user'] extends { kind: 'user' } ? UserCaller : null;
  /** The body parsed with the contract's requestBody (undefined when the handler reads its own body, or there is none). */
  body: E extends { bodyReading: 'own' } ? undefined : Parsed<E['requestBody']>;
  query: E['query'] extends { schema: infer S } ? Parsed<S> : undefined;
  /** The `{name}` segments of the contract's path, decoded. */
  params: Record<string, string>;
}

export type OperationHandler<E extends Endpoint> = (ctx: AppContext, input: OperationInput<E>) => Promise<void> | void;

/** `{id}` (OpenAPI, the contract) to `:id` (the router). */
export const routerPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

/** The query of an operation that takes none: any parameter is refused, as a query schema refuses unknown ones. */
const NO_QUERY = z.strictObject({});

/**
 * An operation without query parameters reports any it is sent (`?limit=1`, a typo of a parameter it does not
 * have) instead of ignoring it, so a client learns at once that the list it got is not the one it asked for.
 */
function refuseAnyQuery(ctx: AppContext): undefined {
  if (ctx.querystring !== '') parseQuery(NO_QUERY, ctx);
  return undefined;
}

/**
 * The caller check and the input parsing an operation's contract asks for, in the order that
 * keeps refusals cheap: the role before the query, the query before the body is read. The
 * gateway already enforced the role; the service checks it again so a route declared wrongly at
 * the gateway, or any other holder of the internal secret, never reaches a user's data.
 */
async function operationInput<E extends Endpoint>(endpoint: E, ctx: AppContext): Promise<OperationInput<E>> {
  const caller = endpoint.user.kind === 'user' ? requireCaller(ctx, { minRole: endpoint.user.minRole }) : null;
  const query = endpoint.query ? parseQuery(endpoint.query.schema, ctx) : refuseAnyQuery(ctx);
  const body = endpoint.requestBody && endpoint.bodyReading !== 'own' ? await readBody(endpoint, endpoint.requestBody, ctx) : undefined;
  return { caller, body, query, params: ctx.params ?? {} } as OperationInput<E>;
}

async function readBody(endpoint: Endpoint, schema: z.ZodType, ctx: AppContext): Promise<unknown> {
  const sent = Number(ctx.get('content-length') || 0) > 0 || Boolean(ctx.get('transfer-encoding'));
  const raw = endpoint.bodyReading === 'optional-json' && !sent ? {} : await readJsonBody(ctx, endpoint.bodyLimitBytes);
  return parseInput(schema, raw, 'body');
}

/**
 * Registers `handler` for an operation on a service's router: the contract's method and path,
 * behind the contract's caller check and parsing. Services name an operation, never its path.
 */
export function handle<E extends Endpoint>(router: Router<AppState>, endpoint: E, handler: OperationHandler<E>): void {
  router.register(routerPath(endpoint.path), [endpoint.method], async (ctx: AppContext) => {
    await handler(ctx, await operationInput(endpoint, ctx));
  });
}
