import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTracedSystem, type TracedSystem } from './traced-processes.js';

// OTEL_TRACES_SAMPLER=always_off: the SDK runs (the endpoint is set) and exports nothing.
let sys: TracedSystem;
let stopped = false;

beforeAll(async () => {
  sys = await startTracedSystem({ env: { OTEL_TRACES_SAMPLER: 'always_off' } });
}, 60_000);
afterAll(() => (stopped ? undefined : sys?.stop()));

describe('OTEL_TRACES_SAMPLER=always_off', () => {
  it('sends no span, even after a graceful stop flushed every queue', async () => {
    const user = await sys.signUp();
    const created = await sys.call('POST', '/api/ApiKeys', {
      body: { name: 'untraced', scopes: 'read:devices' },
      headers: { authorization: `Bearer ${user.token}` },
    });
    expect(created.status).toBe(201);
    stopped = true;
    await sys.stop(); // SIGTERM: each process exports what it queued before it exits
    expect(sys.receiver.spans).toEqual([]);
    expect(sys.receiver.contentTypes).toEqual([]);
  });
});
