import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '@acs/logger';
import type { AppState } from './types.js';

const REQUEST_ID_HEADER = 'x-request-id';

// A caller's id is kept only when it is short and plain, so it can't inject into logs or headers.
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function pickRequestId(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && ACCEPTABLE_ID.test(incoming) ? incoming : randomUUID();
}

/** Takes X-Request-Id from the request or makes one, returns it on every response, logs with it. */
export function requestId(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const id = pickRequestId(ctx.get(REQUEST_ID_HEADER) || undefined);
    ctx.state.requestId = id;
    ctx.state.log = logger.child({ requestId: id });
    ctx.set('X-Request-Id', id);
    await next();
  };
}
