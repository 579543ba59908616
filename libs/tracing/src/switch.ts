import { context, createContextKey, trace, type Context, type Tracer } from '@opentelemetry/api';

/*
 * The one boolean the hot paths check. False until startTracing() has started the SDK: code that
 * makes spans asks first, so with tracing off it costs a function call that reads a variable.
 */
let on = false;

export function tracingIsOn(): boolean {
  return on;
}

/** Set by startTracing and its shutdown only. */
export function setTracingOn(value: boolean): void {
  on = value;
}

/**
 * Which service's code is running, for spans made by shared code (libs/db, libs/cache): in the one
 * `npm start` process they must still land in the right service (routing-provider.ts).
 */
export const SERVICE_KEY = createContextKey('acs.service');

export function withServiceName(ctx: Context, service: string): Context {
  return ctx.setValue(SERVICE_KEY, service);
}

/**
 * The tracer of one service: its spans carry that service's `service.name` whatever the context.
 * Shared code uses trace.getTracer('@acs/<lib>') instead, which follows the running service.
 */
export function tracerFor(service: string): Tracer {
  return trace.getTracer(service);
}

/**
 * Runs a service's start-up in a context that names it: timers and consumers it starts keep that
 * context, so spans of its background work land under its service.name in the one `npm start` process.
 */
export function runAsService<T>(service: string, start: () => T): T {
  if (!on) return start();
  return context.with(withServiceName(context.active(), service), start);
}
