import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { createLogger, prettyLine, serviceLogger } from '@acs/logger';

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
  it("gives a part of a shared process its own service, once per line, on the parent's destination", () => {
    const { destination } = capture();
    const raw: string[] = [];
    const spy = new Writable({
      write(chunk, _enc, cb) {
        raw.push(String(chunk));
        destination.write(chunk, cb);
      },
    });
    serviceLogger(createLogger({ name: 'platform', level: 'warn', destination: spy }), 'keys').warn({ n: 1 }, 'hello');
    expect(raw).toHaveLength(1);
    expect(raw[0]!.match(/"service":/g)).toHaveLength(1);
    expect(JSON.parse(raw[0]!)).toMatchObject({ service: 'keys', level: 'warn', n: 1, msg: 'hello' });
  });

  it('reads a JSON line back as a person would: time, level, service, message, other fields; errors with their stack', () => {
    const line = JSON.stringify({
      level: 'warn',
      time: '2026-01-02T03:04:05.678Z',
      service: 'keys',
      name: 'keys',
      msg: 'slow',
      ms: 12,
      err: { message: 'boom', stack: 'Error: boom\n    at x' },
    });
    expect(prettyLine(line)).toBe('03:04:05 WARN  [keys] slow {"ms":12}\n    Error: boom\n        at x');
    expect(prettyLine('not json')).toBe('not json');
  });

  it('writes JSON lines with service, level label, time and the request id of a child', () => {
    const { lines, destination } = capture();
    createLogger({ name: 'keys', destination }).child({ requestId: 'r-1' }).info({ status: 200 }, 'request');
    expect(lines[0]).toMatchObject({ service: 'keys', level: 'info', requestId: 'r-1', status: 200, msg: 'request' });
    expect(typeof lines[0]!.time).toBe('string');
  });

  it('redacts secrets wherever the platform puts them', () => {
    const { lines, destination } = capture();
    const log = createLogger({ name: 't', destination });
    log.info(
      {
        req: {
          headers: {
            authorization: 'Bearer eyJ.secret',
            'x-api-secret': 'api-secret-value',
            cookie: 'sid=1',
            'x-api-key': 'acs_live_visible',
          },
        },
        body: { password: 'hunter2', email: 'a@b.c' },
        user: { password: 'hunter3' },
        apiKey: { secretHash: 'hash-value', secret: 'plain-secret' },
        password: 'top-level',
      },
      'x',
    );
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
