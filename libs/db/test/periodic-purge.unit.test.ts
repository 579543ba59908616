import { describe, expect, it } from '@jest/globals';
import { createLogger } from '@acs/logger';
import { startPeriodicPurge } from '../src/periodic-purge.js';

const quietLogger = () => createLogger({ name: 'purge-test', level: 'silent' });
const messages = { done: 'purged', failed: 'could not purge' };

describe('a periodic purge', () => {
  it('runs a first pass at once, and settled() waits for that pass to finish', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const events: string[] = [];
    const purge = startPeriodicPurge(
      async () => {
        events.push('pass started');
        await held;
        events.push('pass done');
        return 0;
      },
      3_600_000,
      quietLogger(),
      messages,
    );
    expect(events).toEqual(['pass started']);

    const settled = purge.settled().then(() => events.push('settled'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(['pass started']);
    release();
    await settled;
    expect(events).toEqual(['pass started', 'pass done', 'settled']);
    await purge.stop();
  });

  it('settles after a pass that failed, which is logged and not thrown', async () => {
    const purge = startPeriodicPurge(() => Promise.reject(new Error('database gone')), 3_600_000, quietLogger(), messages);
    await expect(purge.settled()).resolves.toBeUndefined();
    await purge.stop();
  });
});
