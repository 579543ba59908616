import { describe, expect, it } from '@jest/globals';
import { createMemoryCache } from '@acs/cache';
import { idempotencyStoreFor } from '../src/idempotency/idempotency-store.js';

// The embedded mode (`npm start` without Redis): one gateway, the same rules in process (issue 31).
const FINGERPRINT = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);
const answer = { status: 201, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"id":1}') };

describe('Idempotency-Key records on the in-process cache', () => {
  it('claims once; a second claim sees it running; once kept, a claim gets the answer and its fingerprint', async () => {
    const store = idempotencyStoreFor(createMemoryCache(), 60_000);
    expect(await store.claim('e1', 'lease-1', FINGERPRINT)).toEqual({ kind: 'claimed' });
    expect(await store.claim('e1', 'lease-2', OTHER)).toEqual({ kind: 'running', fingerprint: FINGERPRINT });
    await store.complete('e1', 'lease-1', FINGERPRINT, answer, 86_400);
    expect(await store.claim('e1', 'lease-3', FINGERPRINT)).toEqual({ kind: 'done', fingerprint: FINGERPRINT, answer });
  });

  it('only the lease holder keeps or frees the entry; a freed one is claimed again; an expired lease is free', async () => {
    const store = idempotencyStoreFor(createMemoryCache(), 60_000);
    await store.claim('e2', 'lease-1', FINGERPRINT);
    await store.complete('e2', 'not-mine', FINGERPRINT, answer, 86_400);
    await store.release('e2', 'not-mine', FINGERPRINT);
    expect(await store.claim('e2', 'lease-2', FINGERPRINT)).toEqual({ kind: 'running', fingerprint: FINGERPRINT });
    await store.release('e2', 'lease-1', FINGERPRINT);
    expect(await store.claim('e2', 'lease-3', FINGERPRINT)).toEqual({ kind: 'claimed' });

    const short = idempotencyStoreFor(createMemoryCache(), 20);
    await short.claim('e3', 'lease-1', FINGERPRINT);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await short.claim('e3', 'lease-2', FINGERPRINT)).toEqual({ kind: 'claimed' });
  });
});
