export { startTracing, type Tracing, type StartTracingOptions } from './start-tracing.js';
export { readTracingSettings, type TracingSettings, type SettingsReading } from './settings.js';
export { runAsService, tracingIsOn, tracerFor, withServiceName } from './switch.js';
export { ATTR } from './attributes.js';
export { presetTraceId, rootSamplerFor, sampleRoot, type RootIds } from './root-sampling.js';
export { inClientSpan, markSpanFailed } from './client-span.js';
