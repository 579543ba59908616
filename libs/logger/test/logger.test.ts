import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { createLogger } from '@acs/logger';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      cb();
    },
  });
  return { lines, destination };
}

describe('logger', () => {
  it('writes JSON lines with service, level label, time and the request id of a child', () => {
    const { lines, destination } = capture();
    createLogger({ name: 'keys', destination }).child({ requestId: 'r-1' }).info({ status: 200 }, 'request');
    expect(lines[0]).toMatchObject({ service: 'keys', level: 'info', requestId: 'r-1', status: 200, msg: 'request' });
    expect(typeof lines[0]!.time).toBe('string');
  });

  it('redacts secrets wherever the platform puts them', () => {
    const { lines, destination } = capture();
    const log = createLogger({ name: 't', destination });
    log.info({
      req: { headers: { authorization: 'Bearer eyJ.secret', 'x-api-secret': 'api-secret-value', cookie: 'sid=1', 'x-api-key': 'acs_live_visible' } },
      body: { password: 'hunter2', email: 'a@b.c' },
      user: { password: 'hunter3' },
      apiKey: { secretHash: 'hash-value', secret: 'plain-secret' },
      password: 'top-level',
    }, 'x');
    const text = JSON.stringify(lines[0]);
    for (const secret of ['eyJ.secret', 'api-secret-value', 'sid=1', 'hunter2', 'hunter3', 'hash-value', 'plain-secret', 'top-level']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('acs_live_visible'); // the key identifies the caller; only the secret is hidden
    expect(text).toContain('a@b.c');
    expect(text).toContain('[redacted]');
  });

  it('honours the level', () => {
    const { lines, destination } = capture();
    const log = createLogger({ name: 't', level: 'warn', destination });
    log.info('hidden');
    log.warn('shown');
    expect(lines.map((l) => l.msg)).toEqual(['shown']);
  });
});
