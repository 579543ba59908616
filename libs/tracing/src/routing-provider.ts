import { context, trace, type Context, type Span, type SpanOptions, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { SERVICE_KEY } from './switch.js';

/** What routing needs of a service's own provider (the SDK's TracerProvider). */
interface ServiceProvider {
  getTracer(name: string, version?: string): Tracer;
}

/**
 * The global tracer provider: hands each span to the provider of the service whose code made it,
 * so each service reports its own `service.name` (its provider's Resource) even when the launcher
 * runs them all in one process. The service is, in this order: the tracer's own name when it names
 * a service (tracerFor), the service the context names (set by each service's server middleware),
 * the service of the parent span when it is one of this process's, else the process's default.
 */
export class RoutingTracerProvider implements TracerProvider {
  readonly #providers: ReadonlyMap<string, ServiceProvider>;
  readonly #byResource: Map<unknown, string>;
  readonly #defaultService: string;
  readonly #tracers = new Map<string, Tracer>();

  /** `resources`: each provider's Resource object, to recognise a parent span's service. */
  constructor(providers: ReadonlyMap<string, ServiceProvider>, resources: ReadonlyMap<string, unknown>, defaultService: string) {
    this.#providers = providers;
    this.#byResource = new Map([...resources].map(([service, resource]) => [resource, service]));
    this.#defaultService = defaultService;
  }

  getTracer(name: string, version?: string): Tracer {
    const key = version === undefined ? name : `${name}@${version}`;
    let tracer = this.#tracers.get(key);
    if (!tracer) {
      const own = this.#providers.get(name);
      tracer = own ? own.getTracer(name, version) : new RoutingTracer(name, version, this);
      this.#tracers.set(key, tracer);
    }
    return tracer;
  }

  /** The provider of the service running in `ctx`. */
  providerFor(ctx: Context): ServiceProvider {
    const named = ctx.getValue(SERVICE_KEY);
    if (typeof named === 'string') {
      const provider = this.#providers.get(named);
      if (provider) return provider;
    }
    const resource = (trace.getSpan(ctx) as { resource?: unknown } | undefined)?.resource;
    const parentService = resource === undefined ? undefined : this.#byResource.get(resource);
    return this.#providers.get(parentService ?? this.#defaultService)!;
  }
}

/** A library's tracer (pg, Redis, the bus): each span goes to the provider of the running service. */
class RoutingTracer implements Tracer {
  constructor(
    private readonly name: string,
    private readonly version: string | undefined,
    private readonly routing: RoutingTracerProvider,
  ) {}

  startSpan(name: string, options?: SpanOptions, ctx: Context = context.active()): Span {
    return this.routing.providerFor(ctx).getTracer(this.name, this.version).startSpan(name, options, ctx);
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, options: SpanOptions, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, options: SpanOptions, ctx: Context, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
    const fn = rest.pop() as F;
    const [options, ctx = context.active()] = rest as [SpanOptions | undefined, Context | undefined];
    const span = this.startSpan(name, options, ctx);
    return context.with(trace.setSpan(ctx, span), fn as (span: Span) => ReturnType<F>, undefined, span);
  }
}
