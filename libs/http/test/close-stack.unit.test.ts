import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { createLogger } from '@acs/logger';
import { closeTogether, createCloseStack, startWithCloseStack } from '@acs/http';

function capturingLogger() {
  const lines: { level: string; msg: string; step?: string; err?: { message: string } }[] = [];
  const logger = createLogger({
    name: 'close-stack-test',
    destination: new Writable({
      write(chunk, _enc, cb) {
        lines.push(JSON.parse(String(chunk)));
        cb();
      },
    }),
  });
  return { logger, lines };
}

describe('close stack', () => {
  it('runs every step newest first, logs a failing step by name and still runs the rest', async () => {
    const { logger, lines } = capturingLogger();
    const ran: string[] = [];
    const stack = createCloseStack(logger);
    stack.defer('the database', () => void ran.push('database'));
    stack.defer('the relay', async () => {
      ran.push('relay');
      throw new Error('relay stuck');
    });
    stack.defer('the HTTP server', async () => void ran.push('server'));
    await expect(stack.close()).resolves.toBeUndefined();
    expect(ran).toEqual(['server', 'relay', 'database']);
    const errors = lines.filter((line) => line.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ msg: 'could not close the relay', step: 'the relay', err: { message: 'relay stuck' } });
  });

  it('leaves a bounded step behind once its time is up, with a warning naming it, and runs the rest', async () => {
    const { logger, lines } = capturingLogger();
    const ran: string[] = [];
    let failLate: (err: Error) => void = () => {};
    const stack = createCloseStack(logger);
    stack.defer('the database', () => void ran.push('database'));
    // A close that waits for a peer that never answers (AMQP's close-ok through a dead proxy).
    stack.defer('the bus', () => new Promise<void>(() => ran.push('bus')), 50);
    stack.defer('the cache', () => new Promise<void>((_resolve, reject) => (failLate = reject)), 50);
    stack.defer('the HTTP server', async () => void ran.push('server'), 50);
    const started = Date.now();
    await stack.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(ran).toEqual(['server', 'bus', 'database']);
    expect(lines.filter((line) => line.level === 'warn').map((line) => line.msg)).toEqual([
      'the cache did not close within 50 ms; going on without it',
      'the bus did not close within 50 ms; going on without it',
    ]);
    // A step left behind that fails later is logged, not an unhandled rejection.
    failLate(new Error('cache connection reset'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.find((line) => line.level === 'error')).toMatchObject({ step: 'the cache', err: { message: 'cache connection reset' } });
  });

  it('closes together: the slowest bound, not the sum, and a failure or a late one never stops the others', async () => {
    const { logger, lines } = capturingLogger();
    const ran: string[] = [];
    const never = () => new Promise<void>(() => {});
    const started = Date.now();
    await expect(
      closeTogether(logger, [
        { name: 'the bus', step: never, withinMs: 300 },
        { name: 'the cache', step: never, withinMs: 300 },
        { name: 'tracing', step: never, withinMs: 300 },
        { name: 'the pool', step: () => Promise.reject(new Error('pool gone')) },
        { name: 'the timer', step: () => void ran.push('timer') },
      ]),
    ).resolves.toBeUndefined();
    const took = Date.now() - started;
    // Three 300 ms bounds one after another would take 900 ms.
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(850);
    expect(ran).toEqual(['timer']);
    expect(lines.filter((line) => line.level === 'warn').map((line) => line.step)).toEqual(['the bus', 'the cache', 'tracing']);
    expect(lines.find((line) => line.level === 'error')).toMatchObject({ step: 'the pool', err: { message: 'pool gone' } });
  });

  it('closes once, however often close() is called', async () => {
    const { logger } = capturingLogger();
    let count = 0;
    const stack = createCloseStack(logger);
    stack.defer('a thing', () => void count++);
    await Promise.all([stack.close(), stack.close()]);
    await stack.close();
    expect(count).toBe(1);
  });
});

describe('startWithCloseStack', () => {
  it('closes what a failed start opened, then passes the error on', async () => {
    const { logger } = capturingLogger();
    const closed: string[] = [];
    const failure = new Error('port taken');
    await expect(
      startWithCloseStack(logger, async (stack) => {
        stack.defer('the database', () => void closed.push('database'));
        stack.defer('the cache', () => void closed.push('cache'));
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(closed).toEqual(['cache', 'database']);
  });

  it('leaves a started service open until its close is called', async () => {
    const { logger } = capturingLogger();
    const closed: string[] = [];
    const service = await startWithCloseStack(logger, async (stack) => {
      stack.defer('the database', () => void closed.push('database'));
      return { close: stack.close };
    });
    expect(closed).toEqual([]);
    await service.close();
    expect(closed).toEqual(['database']);
  });
});
