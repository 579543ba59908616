import { DiagLogLevel, context, diag, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { defaultResource, detectResources, envDetector, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  StackContextManager,
  ParentBasedSampler,
  RandomIdGenerator,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type IdGenerator,
  type Sampler,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import type { Logger } from '@acs/logger';
import { rootSamplerFor, setRootSampler, takePresetTraceId } from './root-sampling.js';
import { RoutingTracerProvider } from './routing-provider.js';
import type { OtlpProtocol, SamplerName, TracingSettings } from './settings.js';

// Loaded by startTracing only when tracing is on: with it off, none of the SDK's modules are imported.

function samplerOf(name: SamplerName, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

/** Each exporter reads its endpoint, headers, timeout and compression from the environment itself. Only the chosen one is loaded. */
async function exporterOf(protocol: OtlpProtocol): Promise<SpanExporter> {
  switch (protocol) {
    case 'http/protobuf':
      return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
    case 'http/json':
      return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
    case 'grpc':
      return new (await import('@opentelemetry/exporter-trace-otlp-grpc')).OTLPTraceExporter();
  }
}

/**
 * One batch processor (one queue, one exporter) for all the providers of the process: the exporter
 * groups spans by Resource, so one request body carries every service's spans. Each provider gets a
 * handle that never shuts the shared one down; the process's shutdown does, once.
 */
function sharedProcessor(processor: SpanProcessor): SpanProcessor {
  return {
    onStart: (span, parent) => processor.onStart(span, parent),
    onEnd: (span) => processor.onEnd(span),
    forceFlush: () => processor.forceFlush(),
    shutdown: () => Promise.resolve(),
  };
}

/**
 * `services`: the services this process runs. Alone, a service's `service.name` is OTEL_SERVICE_NAME (or
 * service.name in OTEL_RESOURCE_ATTRIBUTES) when set, else its own name, as the specification says; with
 * several (npm start), each reports its own name and those variables' service.name is ignored.
 */
function resourcesOf(services: readonly string[]): Map<string, Resource> {
  const fromEnv = detectResources({ detectors: [envDetector] });
  const base = defaultResource();
  const resources = new Map<string, Resource>();
  for (const service of services) {
    const own = resourceFromAttributes({ 'service.name': service });
    resources.set(service, services.length === 1 ? base.merge(own).merge(fromEnv) : base.merge(fromEnv).merge(own));
  }
  return resources;
}

export interface StartedSdk {
  /** Exports what is queued, then stops; the globals go back to no-ops. */
  shutdown(): Promise<void>;
}

export interface SdkOptions {
  services: readonly string[];
  defaultService: string;
  /** The process passes span contexts explicitly (the gateway): no AsyncLocalStorage (start-tracing.ts says why). */
  explicitContext: boolean;
  logger: Logger;
}

export async function startSdk(
  settings: TracingSettings,
  { services, defaultService, explicitContext, logger }: SdkOptions,
): Promise<StartedSdk> {
  // The SDK's own complaints (an export that failed, a dropped span) reach the log as warnings, not stderr.
  diag.setLogger(
    {
      error: (message, ...args) => logger.warn({ args }, `tracing: ${message}`),
      warn: (message, ...args) => logger.warn({ args }, `tracing: ${message}`),
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    DiagLogLevel.WARN,
  );
  const processor = new BatchSpanProcessor({ exporter: await exporterOf(settings.protocol), ...settings.batch });
  const sampler = samplerOf(settings.sampler, settings.ratio);
  // Random ids, except the one trace id the gateway chose and sampled itself (root-sampling.ts).
  const random = new RandomIdGenerator();
  const idGenerator: IdGenerator = {
    generateTraceId: () => takePresetTraceId() ?? random.generateTraceId(),
    generateSpanId: () => random.generateSpanId(),
  };
  const all = services.includes(defaultService) ? services : [...services, defaultService];
  const resources = resourcesOf(all);
  const providers = new Map(
    all.map((service) => [
      service,
      new TracerProvider({ resource: resources.get(service)!, sampler, idGenerator, spanProcessors: [sharedProcessor(processor)] }),
    ]),
  );
  const contextManager = explicitContext ? new StackContextManager().enable() : new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(new RoutingTracerProvider(providers, resources, defaultService));
  setRootSampler(rootSamplerFor(settings.sampler, settings.ratio));
  return {
    shutdown: async () => {
      setRootSampler(null);
      await processor.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
      diag.disable();
    },
  };
}
