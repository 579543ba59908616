import { describe, expect, it } from '@jest/globals';
import { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';
import type { Sampler } from '@opentelemetry/sdk-trace';
import { rootSamplerFor } from '@acs/tracing';

// The gateway decides a new trace's fate without the SDK, then lets the SDK make the kept ones'
// spans with the same trace id: the two decisions must be the same for every id, or a kept request
// would lose its spans (or a dropped one be sampled after all).
const sdkSamplers = {
  always_on: new AlwaysOnSampler(),
  always_off: new AlwaysOffSampler(),
  traceidratio: (ratio: number) => new TraceIdRatioBasedSampler(ratio),
  parentbased_traceidratio: (ratio: number) => new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) }),
};

const sdkKeeps = (sampler: Sampler, traceId: string): boolean =>
  sampler.shouldSample(ROOT_CONTEXT, traceId, 'GET', SpanKind.SERVER, {}, []).decision === SamplingDecision.RECORD_AND_SAMPLED;

describe('rootSamplerFor', () => {
  it.each([0.01, 0.25, 0.5, 0.999, 1, 0])('decides as the SDK does on the same trace id, ratio %p', (ratio) => {
    for (const name of ['traceidratio', 'parentbased_traceidratio'] as const) {
      const ours = rootSamplerFor(name, ratio);
      const theirs = sdkSamplers[name](ratio);
      for (let i = 0; i < 20_000; i++) {
        const root = ours();
        expect(root.sampled).toBe(sdkKeeps(theirs, root.traceId));
      }
    }
  });

  it('keeps about the configured share, with valid W3C ids', () => {
    const sample = rootSamplerFor('parentbased_traceidratio', 0.01);
    let kept = 0;
    const traceIds = new Set<string>();
    for (let i = 0; i < 100_000; i++) {
      const root = sample();
      if (root.sampled) kept += 1;
      traceIds.add(root.traceId);
      if (i < 1000) {
        expect(root.traceId).toMatch(/^[0-9a-f]{32}$/);
        expect(root.spanId).toMatch(/^[0-9a-f]{16}$/);
        expect(root.traceId).not.toBe('0'.repeat(32));
      }
    }
    // 1,000 expected; the bounds are over six standard deviations away.
    expect(kept).toBeGreaterThan(800);
    expect(kept).toBeLessThan(1200);
    expect(traceIds.size).toBe(100_000);
  });

  it('always and never, as named, at the root of parentbased samplers too', () => {
    for (const [name, expected] of [
      ['always_on', true],
      ['parentbased_always_on', true],
      ['always_off', false],
      ['parentbased_always_off', false],
    ] as const) {
      const sample = rootSamplerFor(name, 1);
      for (let i = 0; i < 100; i++) expect(sample().sampled).toBe(expected);
    }
    expect(sdkKeeps(sdkSamplers.always_on, 'a'.repeat(32))).toBe(true);
    expect(sdkKeeps(sdkSamplers.always_off, 'a'.repeat(32))).toBe(false);
  });
});
