import { describe, it, expect } from '@jest/globals';
import type { Subscription } from '@acs/bus';
import { captureLogger } from '@acs/testing';
import { LateSubscription } from '../src/consumers/late-subscription.js';

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

describe('LateSubscription (the subscription-events consumer the identity service does not wait for)', () => {
  it('keeps a subscription that completes before the stop, and closes it at the stop', async () => {
    const late = new LateSubscription(captureLogger().logger);
    const subscription = countingSubscription();
    await late.follow(Promise.resolve(subscription));
    expect(subscription.closes).toBe(0);
    await late.stop();
    expect(subscription.closes).toBe(1);
  });

  it('closes a subscription that completes after the stop began, and does not keep it', async () => {
    const late = new LateSubscription(captureLogger().logger);
    const subscription = countingSubscription();
    let complete: (ready: Subscription) => void = () => undefined;
    const ready = late.follow(new Promise<Subscription>((resolve) => (complete = resolve)));
    late.beginStop();
    complete(subscription);
    await ready;
    expect(subscription.closes).toBe(1);
    await late.stop();
    expect(subscription.closes).toBe(1);
  });

  it('logs a failed subscribe without rejecting, and says nothing once the stop began', async () => {
    const running = captureLogger();
    await expect(new LateSubscription(running.logger).follow(Promise.reject(new Error('broker down')))).resolves.toBeUndefined();
    expect(running.lines.map((line) => line.msg)).toEqual(['could not subscribe to subscription events; roles will not follow billing']);

    const stopping = captureLogger();
    const late = new LateSubscription(stopping.logger);
    let fail: (err: Error) => void = () => undefined;
    const ready = late.follow(new Promise<Subscription>((_, reject) => (fail = reject)));
    late.beginStop();
    fail(new Error('channel closed'));
    await expect(ready).resolves.toBeUndefined();
    expect(stopping.lines).toEqual([]);
  });
});
