import type { Logger } from '@acs/logger';
import type { z } from 'zod';
import type { GatewayCall, GatewayClient } from './gateway-client.js';

/** Who is asking: our request id and logger, and the user's JWT where the route needs one. */
export interface CallerContext {
  requestId: string;
  log: Logger;
  token?: string | null;
  /** The browser's address: sent as X-Forwarded-For, which the gateway accepts from a system key. */
  clientAddress?: string;
  /** The browser's User-Agent: identity labels a sign-in's session with it ("Firefox on Linux"). */
  userAgent?: string;
}

/** An operation as its contract states it: the method, the path (`{id}` for a record) and the success answer's schema. */
export interface Operation<S extends z.ZodType = z.ZodType> {
  method: GatewayCall['method'];
  path: string;
  success: { schema: S };
}

/** What a call adds to its operation: the record's id, a query string, a body, and the other call options. */
export type CallParts = Partial<Pick<GatewayCall, 'body' | 'token' | 'idempotencyKey'>> & {
  id?: string;
  /** The path's other `{name}` parameters. */
  params?: Record<string, string>;
  query?: string;
};

/**
 * The call of one operation, its method and path taken from the contract, so the dashboard never
 * restates them. Ids come from our router, which admits only [A-Za-z0-9_-]; encoding is belt and braces.
 */
export function callOf(
  operation: Omit<Operation, 'success'>,
  ctx: CallerContext,
  { id, params, query, ...rest }: CallParts = {},
): GatewayCall {
  let path = id === undefined ? operation.path : operation.path.replace('{id}', encodeURIComponent(id));
  for (const [name, value] of Object.entries(params ?? {})) path = path.replace(`{${name}}`, encodeURIComponent(value));
  return { ...ctx, ...rest, method: operation.method, path: query === undefined ? path : `${path}?${query}` };
}

/** The answer's body, parsed with `schema`: all most calls need of it (the status only tells a device registration from a repeat). */
export async function bodyOf<S extends z.ZodType>(gateway: GatewayClient, schema: S, call: GatewayCall): Promise<z.infer<S>> {
  return (await gateway.send(schema, call)).data;
}

/** The answer's body of one operation, parsed with the schema its contract gives the success answer. */
export const answerOf = <S extends z.ZodType>(gateway: GatewayClient, operation: Operation<S>, ctx: CallerContext, parts?: CallParts) =>
  bodyOf(gateway, operation.success.schema, callOf(operation, ctx, parts));
