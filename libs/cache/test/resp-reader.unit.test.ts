import { describe, expect, it } from '@jest/globals';
import { RespError, RespProtocolError, RespReader, type RespReply } from '../src/resp-reader.js';

function readAll(chunks: Buffer[]): RespReply[] {
  const replies: RespReply[] = [];
  const reader = new RespReader((reply) => replies.push(reply));
  for (const chunk of chunks) reader.feed(chunk);
  return replies;
}

// Two MGET replies (one with a miss and a non-ASCII value), a nil array, a status, an error and an integer.
const STREAM = Buffer.from(
  '*3\r\n$5\r\nfirst\r\n$-1\r\n$5\r\nsüß\r\n*0\r\n*-1\r\n+OK\r\n-ERR wrong number of arguments\r\n:-42\r\n',
  'utf8',
);

describe('RESP2 reply reader', () => {
  it('reads every reply type the MGET connection can meet, in order', () => {
    const replies = readAll([STREAM]);
    expect(replies.slice(0, 5)).toEqual([['first', null, 'süß'], [], null, 'OK', expect.any(RespError)]);
    expect((replies[4] as RespError).message).toBe('ERR wrong number of arguments');
    expect(replies[5]).toBe(-42);
    expect(replies).toHaveLength(6);
  });

  it('gives the same replies however the bytes are split across chunks', () => {
    const whole = readAll([STREAM]);
    for (let cut = 1; cut < STREAM.length; cut++) {
      expect(readAll([STREAM.subarray(0, cut), STREAM.subarray(cut)])).toEqual(whole);
    }
    const byteByByte = Array.from({ length: STREAM.length }, (_, i) => STREAM.subarray(i, i + 1));
    expect(readAll(byteByByte)).toEqual(whole);
  });

  it('reads a large value that arrives in many chunks', () => {
    const value = 'v'.repeat(300_000);
    const bytes = Buffer.from(`*2\r\n$${value.length}\r\n${value}\r\n$-1\r\n`);
    const chunks: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += 65_536) chunks.push(bytes.subarray(at, at + 65_536));
    expect(readAll(chunks)).toEqual([[value, null]]);
  });

  it('rejects bytes that are not RESP2 instead of guessing', () => {
    expect(() => readAll([Buffer.from('HTTP/1.1 400 Bad Request\r\n')])).toThrow(RespProtocolError);
    expect(() => readAll([Buffer.from('$abc\r\n')])).toThrow(RespProtocolError);
    expect(() => readAll([Buffer.from('*\r\n')])).toThrow(RespProtocolError);
  });

  it('forgets a partial reply on reset (its connection is gone)', () => {
    const replies: RespReply[] = [];
    const reader = new RespReader((reply) => replies.push(reply));
    reader.feed(Buffer.from('*2\r\n$3\r\nabc\r\n'));
    reader.reset();
    reader.feed(Buffer.from('+OK\r\n'));
    expect(replies).toEqual(['OK']);
  });
});
