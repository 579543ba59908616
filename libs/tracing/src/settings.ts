/**
 * The OpenTelemetry environment variables this platform reads itself (the SDK 2.x line reads none;
 * the OTLP exporters read their endpoint, headers, timeout, compression and certificates). Follows
 * the specification's rules: an empty value counts as unset, enum values are case-insensitive, and a
 * value it does not recognise is ignored with a warning (the default applies). The one exception is
 * an endpoint that is not a URL: the exporter would quietly fall back to localhost, so it stops the start.
 */
export type OtlpProtocol = 'http/protobuf' | 'http/json' | 'grpc';

export type SamplerName =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

/** OTEL_BSP_*: the batch span processor's knobs; unset ones keep the SDK's defaults. */
export interface BatchSettings {
  scheduledDelayMillis?: number;
  exportTimeoutMillis?: number;
  maxQueueSize?: number;
  maxExportBatchSize?: number;
}

export interface TracingSettings {
  protocol: OtlpProtocol;
  sampler: SamplerName;
  /** The ratio of the traceidratio samplers, in [0, 1]; 1 when unset. */
  ratio: number;
  batch: BatchSettings;
}

export interface SettingsReading {
  /** Null: tracing stays off (no endpoint, OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none). */
  settings: TracingSettings | null;
  /** Values ignored under the specification's rules, for the start-up log. */
  warnings: string[];
}

type Env = Readonly<Record<string, string | undefined>>;

const PROTOCOLS: readonly OtlpProtocol[] = ['http/protobuf', 'http/json', 'grpc'];
const SAMPLERS: readonly SamplerName[] = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];
const BATCH_VARIABLES: Record<keyof BatchSettings, string> = {
  scheduledDelayMillis: 'OTEL_BSP_SCHEDULE_DELAY',
  exportTimeoutMillis: 'OTEL_BSP_EXPORT_TIMEOUT',
  maxQueueSize: 'OTEL_BSP_MAX_QUEUE_SIZE',
  maxExportBatchSize: 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
};

/** The specification: "an empty value is the same as unset". */
function setting(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value.length === 0 ? undefined : value;
}

function assertUrl(env: Env, name: string): void {
  const value = setting(env, name);
  if (value === undefined) return;
  let scheme: string;
  try {
    scheme = new URL(value).protocol;
  } catch {
    scheme = '';
  }
  if (scheme !== 'http:' && scheme !== 'https:')
    throw new Error(`${name}: expected an http:// or https:// URL such as http://collector:4318, got "${value}"`);
}

function enumOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T, warnings: string[]): T {
  const value = setting(env, name)?.toLowerCase();
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  warnings.push(`${name}="${value}" is not one of ${allowed.join(', ')}; using ${fallback}`);
  return fallback;
}

function ratioOf(env: Env, warnings: string[]): number {
  const value = setting(env, 'OTEL_TRACES_SAMPLER_ARG');
  if (value === undefined) return 1;
  const ratio = Number(value);
  if (Number.isFinite(ratio) && ratio >= 0 && ratio <= 1) return ratio;
  warnings.push(`OTEL_TRACES_SAMPLER_ARG="${value}" is not a number from 0 to 1; using 1`);
  return 1;
}

function batchOf(env: Env, warnings: string[]): BatchSettings {
  const batch: BatchSettings = {};
  for (const [field, name] of Object.entries(BATCH_VARIABLES) as [keyof BatchSettings, string][]) {
    const value = setting(env, name);
    if (value === undefined) continue;
    const number = Number(value);
    if (Number.isSafeInteger(number) && number > 0) batch[field] = number;
    else warnings.push(`${name}="${value}" is not a positive integer; using the default`);
  }
  // The SDK refuses a batch larger than the queue; the specification's defaults are 512 and 2048.
  if (batch.maxExportBatchSize !== undefined && batch.maxExportBatchSize > (batch.maxQueueSize ?? 2048)) {
    warnings.push('OTEL_BSP_MAX_EXPORT_BATCH_SIZE is larger than OTEL_BSP_MAX_QUEUE_SIZE; using the queue size');
    batch.maxExportBatchSize = batch.maxQueueSize ?? 2048;
  }
  return batch;
}

/** Only OTLP exports here; "none" turns tracing off, anything else is ignored with a warning. */
function exportsTraces(env: Env, warnings: string[]): boolean {
  const value = setting(env, 'OTEL_TRACES_EXPORTER')?.toLowerCase();
  if (value === undefined) return true;
  const names = value.split(',').map((name) => name.trim());
  if (names.includes('none')) return false;
  const unknown = names.filter((name) => name !== 'otlp');
  if (unknown.length > 0) warnings.push(`OTEL_TRACES_EXPORTER: only otlp is supported here; ignoring ${unknown.join(', ')}`);
  return true;
}

export function readTracingSettings(env: Env): SettingsReading {
  const warnings: string[] = [];
  const endpoint = setting(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? setting(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  // Off unless an endpoint is named: the specification's default (localhost:4318) would make every process try to export.
  if (endpoint === undefined || setting(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return { settings: null, warnings };
  if (!exportsTraces(env, warnings)) return { settings: null, warnings };
  assertUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  assertUrl(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const protocolVariable = setting(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL')
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = enumOf(env, protocolVariable, PROTOCOLS, 'http/protobuf', warnings);
  const sampler = enumOf(env, 'OTEL_TRACES_SAMPLER', SAMPLERS, 'parentbased_always_on', warnings);
  const ratio = sampler.endsWith('traceidratio') ? ratioOf(env, warnings) : 1;
  return { settings: { protocol, sampler, ratio, batch: batchOf(env, warnings) }, warnings };
}
