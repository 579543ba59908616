import { describe, it, expect } from '@jest/globals';
import { captureLogger } from '@acs/testing';
import { consumeLater, LateSubscription } from '../src/late-subscription.js';
import type { Subscription } from '../src/types.js';

/** A subscription that counts its closes. */
function countingSubscription(): Subscription & { closes: number } {
  const subscription = {
    closes: 0,
    close: async () => {
      subscription.closes += 1;
    },
  };
  return subscription;
}

/** A subscribe still under way, completed or failed by the test. */
function pendingSubscribe(): { subscribing: Promise<Subscription>; complete(s: Subscription): void; fail(err: Error): void } {
  let complete: (s: Subscription) => void = () => undefined;
  let fail: (err: Error) => void = () => undefined;
  const subscribing = new Promise<Subscription>((resolve, reject) => {
    complete = resolve;
    fail = reject;
  });
  return { subscribing, complete, fail };
}

describe('LateSubscription (a consumer a service does not wait for at start)', () => {
  it('keeps a subscription that completes before the close, and closes it at the close', async () => {
    const subscription = countingSubscription();
    const late = new LateSubscription(Promise.resolve(subscription), captureLogger().logger);
    await late.ready;
    expect(subscription.closes).toBe(0);
    await late.close();
    expect(subscription.closes).toBe(1);
  });

  it('does not wait for a subscribe still under way (a broker that is down): the close returns at once', async () => {
    const pending = pendingSubscribe();
    const close = consumeLater(pending.subscribing, captureLogger().logger);
    const outcome = await Promise.race([close().then(() => 'closed'), new Promise((r) => setTimeout(() => r('waiting'), 200))]);
    expect(outcome).toBe('closed');
    // The broker came back after all: the subscription closes itself rather than consume for a service that stopped.
    const subscription = countingSubscription();
    pending.complete(subscription);
    await new Promise((r) => setImmediate(r));
    expect(subscription.closes).toBe(1);
  });

  it('closes a subscription that completes after the close began, and does not keep it', async () => {
    const pending = pendingSubscribe();
    const late = new LateSubscription(pending.subscribing, captureLogger().logger);
    late.beginClose();
    const subscription = countingSubscription();
    pending.complete(subscription);
    await late.ready;
    expect(subscription.closes).toBe(1);
    await late.close();
    expect(subscription.closes).toBe(1);
  });

  it('logs a failed subscribe with its own words, without rejecting; says nothing once the close began', async () => {
    const running = captureLogger();
    const late = new LateSubscription(Promise.reject(new Error('broker down')), running.logger, 'roles will not follow billing');
    await expect(late.ready).resolves.toBeUndefined();
    expect(running.lines.map((line) => line.msg)).toEqual(['roles will not follow billing']);

    const closing = captureLogger();
    const pending = pendingSubscribe();
    const quiet = new LateSubscription(pending.subscribing, closing.logger);
    quiet.beginClose();
    pending.fail(new Error('the bus was closed'));
    await expect(quiet.ready).resolves.toBeUndefined();
    expect(closing.lines).toEqual([]);
  });
});
