import { describe, expect, it } from '@jest/globals';
import { readTracingSettings } from '@acs/tracing';

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };

describe('readTracingSettings: when tracing is on', () => {
  it('is off without an endpoint, whatever else is set', () => {
    expect(readTracingSettings({}).settings).toBeNull();
    expect(readTracingSettings({ OTEL_TRACES_SAMPLER: 'always_on', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).settings).toBeNull();
    // The specification: an empty value is the same as unset.
    expect(readTracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }).settings).toBeNull();
  });

  it('is on with either endpoint variable', () => {
    expect(readTracingSettings(ENDPOINT).settings).not.toBeNull();
    expect(readTracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://tempo:4318/v1/traces' }).settings).not.toBeNull();
  });

  it('is off with OTEL_SDK_DISABLED=true (any case) or OTEL_TRACES_EXPORTER=none', () => {
    expect(readTracingSettings({ ...ENDPOINT, OTEL_SDK_DISABLED: 'TRUE' }).settings).toBeNull();
    expect(readTracingSettings({ ...ENDPOINT, OTEL_SDK_DISABLED: 'false' }).settings).not.toBeNull();
    expect(readTracingSettings({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }).settings).toBeNull();
    expect(readTracingSettings({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'otlp' }).settings).not.toBeNull();
  });

  it('warns about exporters other than otlp and keeps otlp', () => {
    const reading = readTracingSettings({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'otlp,zipkin' });
    expect(reading.settings).not.toBeNull();
    expect(reading.warnings).toEqual([expect.stringContaining('ignoring zipkin')]);
  });

  it('refuses an endpoint that is not a URL, naming the variable', () => {
    expect(() => readTracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318 x' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT: expected an http:\/\/ or https:\/\/ URL/,
    );
    expect(() => readTracingSettings({ ...ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'nope' })).toThrow(
      /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/,
    );
  });
});

describe('readTracingSettings: protocol', () => {
  it('defaults to http/protobuf; accepts http/json and grpc; the traces variable wins', () => {
    expect(readTracingSettings(ENDPOINT).settings?.protocol).toBe('http/protobuf');
    expect(readTracingSettings({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).settings?.protocol).toBe('http/json');
    expect(readTracingSettings({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'GRPC' }).settings?.protocol).toBe('grpc');
    expect(
      readTracingSettings({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }).settings
        ?.protocol,
    ).toBe('http/json');
  });

  it('falls back to http/protobuf with a warning on an unknown protocol', () => {
    const reading = readTracingSettings({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/xml' });
    expect(reading.settings?.protocol).toBe('http/protobuf');
    expect(reading.warnings).toEqual([expect.stringMatching(/OTEL_EXPORTER_OTLP_PROTOCOL="http\/xml".*using http\/protobuf/)]);
  });
});

describe('readTracingSettings: sampler', () => {
  it('defaults to parentbased_always_on', () => {
    expect(readTracingSettings(ENDPOINT).settings).toMatchObject({ sampler: 'parentbased_always_on', ratio: 1 });
  });

  it.each(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'])(
    'accepts %s',
    (sampler) => {
      expect(readTracingSettings({ ...ENDPOINT, OTEL_TRACES_SAMPLER: sampler.toUpperCase() }).settings?.sampler).toBe(sampler);
    },
  );

  it('reads the ratio of the traceidratio samplers; 1 when unset', () => {
    expect(
      readTracingSettings({ ...ENDPOINT, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.01' }).settings
        ?.ratio,
    ).toBe(0.01);
    expect(readTracingSettings({ ...ENDPOINT, OTEL_TRACES_SAMPLER: 'traceidratio' }).settings?.ratio).toBe(1);
  });

  it('falls back with a warning: an unknown sampler to parentbased_always_on, a ratio outside [0, 1] to 1', () => {
    const unknown = readTracingSettings({ ...ENDPOINT, OTEL_TRACES_SAMPLER: 'jaeger_remote' });
    expect(unknown.settings?.sampler).toBe('parentbased_always_on');
    expect(unknown.warnings).toHaveLength(1);
    for (const arg of ['1.5', '-0.1', 'half']) {
      const reading = readTracingSettings({ ...ENDPOINT, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: arg });
      expect(reading.settings?.ratio).toBe(1);
      expect(reading.warnings).toEqual([expect.stringContaining('OTEL_TRACES_SAMPLER_ARG')]);
    }
  });
});

describe('readTracingSettings: batch span processor', () => {
  it('reads OTEL_BSP_* and ignores invalid values with a warning', () => {
    const reading = readTracingSettings({
      ...ENDPOINT,
      OTEL_BSP_SCHEDULE_DELAY: '200',
      OTEL_BSP_EXPORT_TIMEOUT: 'soon',
      OTEL_BSP_MAX_QUEUE_SIZE: '100',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '500',
    });
    expect(reading.settings?.batch).toEqual({ scheduledDelayMillis: 200, maxQueueSize: 100, maxExportBatchSize: 100 });
    expect(reading.warnings).toEqual([expect.stringContaining('OTEL_BSP_EXPORT_TIMEOUT'), expect.stringContaining('larger than')]);
  });
});
