import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { KIND, type ReceivedSpan } from './otlp-receiver.js';
import { findChain, inTrace } from './span-tree.js';
import { startTracedSystem, type TracedSystem } from './traced-processes.js';

// The default protocol (http/protobuf, decoded by the receiver) and a gateway that trusts its clients' traceparent.
let sys: TracedSystem;

beforeAll(async () => {
  sys = await startTracedSystem({ env: {}, gatewayEnv: { TRACE_TRUST_INCOMING: 'true' } });
}, 60_000);
afterAll(() => sys?.stop());

describe('TRACE_TRUST_INCOMING=true, exported as http/protobuf', () => {
  it("continues the client's trace: its trace id, its span as the parent, through to identity", async () => {
    const clientTrace = randomBytes(16).toString('hex');
    const clientSpan = randomBytes(8).toString('hex');
    const user = await sys.signUp();
    const login = await sys.call('POST', '/api/Users/Login', {
      body: { email: user.email, password: user.password },
      headers: { traceparent: `00-${clientTrace}-${clientSpan}-01`, tracestate: 'vendor=abc' },
    });
    expect(login.status).toBe(200);
    const chainOf = (spans: readonly ReceivedSpan[]) =>
      findChain(inTrace(spans, clientTrace), [
        { service: 'gateway', kind: KIND.server, name: 'POST /api/Users/Login' },
        { service: 'gateway', kind: KIND.client },
        { service: 'identity', kind: KIND.server },
      ]);
    const spans = await sys.receiver.waitForSpans((all) => chainOf(all) !== null);
    const [root] = chainOf(spans)!;
    expect(root!.parentSpanId).toBe(clientSpan);
    expect(root!.links).toEqual([]);
    expect(sys.receiver.contentTypes.length).toBeGreaterThan(0);
    for (const type of sys.receiver.contentTypes) expect(type).toBe('application/x-protobuf');
  });
});
