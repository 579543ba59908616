import { randomBytes } from 'node:crypto';
import type { SamplerName } from './settings.js';

/*
 * The sampling decision for a trace the gateway starts, made without the SDK. The gateway asks this
 * first and calls the SDK only for the requests it keeps (1 in 100 at OTEL_TRACES_SAMPLER_ARG=0.01):
 * a dropped request costs a slice of pooled random bytes and two hex strings instead of the SDK's
 * startSpan, its samplers, id checks and a context (about 4 µs of the ~7 µs the gateway's profile
 * put in tracing code; docs/performance.md). The decision is the SDK's own on the same trace id:
 * TraceIdRatioBasedSampler keeps a trace when the XOR of the id's four 32-bit words is below
 * ratio × 0xffffffff, and a kept request's span is made with that id (presetTraceId), so the SDK,
 * deciding again, agrees (libs/tracing/test/root-sampling.unit.test.ts holds the two to each other).
 */

/** The ids of a trace root and whether the configured sampler keeps it. */
export interface RootIds {
  traceId: string;
  spanId: string;
  sampled: boolean;
}

const IDS_BYTES = 24; // 16 of trace id, 8 of span id
const POOL_BYTES = IDS_BYTES * 512;
let pool = Buffer.alloc(0);
let offset = 0;

function keepRule(name: SamplerName, ratio: number): (accumulated: number) => boolean {
  switch (name) {
    case 'always_on':
    case 'parentbased_always_on':
      return () => true;
    case 'always_off':
    case 'parentbased_always_off':
      return () => false;
    case 'traceidratio':
    case 'parentbased_traceidratio': {
      const r = Number.isNaN(ratio) ? 0 : Math.min(1, Math.max(0, ratio));
      const upperBound = r === 1 ? 0x100000000 : Math.floor(r * 0xffffffff);
      return (accumulated) => accumulated < upperBound;
    }
  }
}

/** A root sampler for the configured OTEL_TRACES_SAMPLER (at a root, parentbased_X decides as X). */
export function rootSamplerFor(name: SamplerName, ratio: number): () => RootIds {
  const keep = keepRule(name, ratio);
  return () => {
    if (offset + IDS_BYTES > pool.length) {
      pool = randomBytes(POOL_BYTES);
      offset = 0;
    }
    const at = offset;
    offset += IDS_BYTES;
    // All-zero ids are invalid in W3C trace context (chance 2^-128 and 2^-64; the SDK guards the same way).
    if (pool.readBigUInt64BE(at) === 0n && pool.readBigUInt64BE(at + 8) === 0n) pool[at + 15] = 1;
    if (pool.readBigUInt64BE(at + 16) === 0n) pool[at + 23] = 1;
    const accumulated = (pool.readUInt32BE(at) ^ pool.readUInt32BE(at + 4) ^ pool.readUInt32BE(at + 8) ^ pool.readUInt32BE(at + 12)) >>> 0;
    return {
      traceId: pool.toString('hex', at, at + 16),
      spanId: pool.toString('hex', at + 16, at + IDS_BYTES),
      sampled: keep(accumulated),
    };
  };
}

let activeRootSampler: (() => RootIds) | null = null;
let presetId: string | undefined;

/** Set by the SDK's start (the configured sampler) and cleared by its shutdown. */
export function setRootSampler(sampler: (() => RootIds) | null): void {
  activeRootSampler = sampler;
  presetId = undefined;
}

/** The ids and decision for a new trace root; null while tracing is off. */
export function sampleRoot(): RootIds | null {
  return activeRootSampler === null ? null : activeRootSampler();
}

/** The trace id the next root span of the SDK gets (the caller starts that span right away, synchronously). */
export function presetTraceId(traceId: string): void {
  presetId = traceId;
}

/** For the SDK's id generator: the preset id, once, else undefined (then a random one). */
export function takePresetTraceId(): string | undefined {
  const id = presetId;
  presetId = undefined;
  return id;
}
