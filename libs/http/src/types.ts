import type { ParameterizedContext } from 'koa';
import type { Logger } from '@acs/logger';
import type { InternalContext } from '@acs/auth';

/** What the shared middleware puts on `ctx.state` for the routes. */
export interface AppState {
  requestId: string;
  log: Logger;
  /** The gateway-signed caller context; set on every route except the probes. */
  caller?: InternalContext;
}

export type AppContext = ParameterizedContext<AppState>;
