import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SPEC_ERRORS } from '@acs/errors';
import { startGatewayHarness, type GatewayHarness } from './harness.js';

// Issue 27, item 4: a request refused before its body is read (401 on the headers, 413 on
// Content-Length) is answered, and the client, still sending, reads that answer instead of EPIPE.
const MAX_BODY_BYTES = 16 * 1024 * 1024;
let h: GatewayHarness;
let key: { key: string; secret: string };
let scratch: string;

beforeAll(async () => {
  h = await startGatewayHarness();
  key = await h.createKey(['system:full-access']);
  scratch = mkdtempSync(path.join(tmpdir(), 'acs-linger-'));
});
afterAll(async () => {
  await h.close();
  rmSync(scratch, { recursive: true, force: true });
});

interface Answer {
  status: number;
  connection: string | undefined;
  body: Record<string, unknown>;
  /** What the client's own writing ran into after the answer (EPIPE, ECONNRESET), if anything. */
  writeError?: string;
}

/**
 * POSTs `totalBytes` in `chunkBytes` writes, pausing `pauseMs` between writes as a slow uplink
 * would, and resolves with the answer once it is read whole; fails only when no answer could be read.
 */
function slowPost(
  pathname: string,
  headers: Record<string, string>,
  totalBytes: number,
  chunkBytes: number,
  pauseMs: number,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answer: Answer | undefined;
    let writeError: string | undefined;
    const req = request(`${h.url}${pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(totalBytes), ...headers },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        answer = { status: res.statusCode!, connection: res.headers.connection, body: JSON.parse(text) as Record<string, unknown> };
        resolve(writeError ? { ...answer, writeError } : answer);
        req.destroy(); // stop sending: the answer is in
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      writeError = err.code ?? err.message;
      if (!answer) reject(new Error(`no answer read; the client got ${writeError}`));
    });
    const chunk = Buffer.alloc(chunkBytes, 0x20);
    let sent = 0;
    const writeNext = (): void => {
      if (req.destroyed || answer) return;
      if (sent >= totalBytes) {
        req.end();
        return;
      }
      const part = chunk.subarray(0, Math.min(chunkBytes, totalBytes - sent));
      sent += part.length;
      const more = req.write(part);
      if (more) setTimeout(writeNext, pauseMs);
      else req.once('drain', () => setTimeout(writeNext, pauseMs));
    };
    writeNext();
  });
}

/** curl uploading `file` at `rate` (curl --limit-rate), printing the answer's body and then its status. */
function curlUpload(
  pathname: string,
  headers: string[],
  file: string,
  rate: string,
): Promise<{ exitCode: number; status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const args = ['-sS', '--limit-rate', rate, '-X', 'POST', '--data-binary', `@${file}`, '-H', 'Content-Type: application/json'];
    for (const header of headers) args.push('-H', header);
    args.push('-w', '\n%{http_code}', `${h.url}${pathname}`);
    const curl = spawn('curl', args);
    let out = '';
    let err = '';
    curl.stdout.on('data', (c: Buffer) => (out += c.toString()));
    curl.stderr.on('data', (c: Buffer) => (err += c.toString()));
    curl.on('error', reject);
    curl.on('close', (exitCode) => {
      const lines = out.trimEnd().split('\n');
      const status = Number(lines.pop());
      try {
        resolve({ exitCode: exitCode ?? -1, status, body: JSON.parse(lines.join('\n')) as Record<string, unknown> });
      } catch {
        reject(new Error(`curl exited ${exitCode} with no JSON answer: ${err.trim()} ${out.slice(0, 200)}`));
      }
    });
  });
}

describe('an answer sent before the body is read reaches a client still sending it', () => {
  it('401 for a missing secret, to a node client sending 1 MB slowly', async () => {
    const answer = await slowPost('/api/Dac/import', { 'x-api-key': key.key }, 1024 * 1024, 16 * 1024, 2);
    expect(answer).toMatchObject({
      status: 401,
      connection: 'close',
      body: { error: SPEC_ERRORS.missingApiKey.error, message: SPEC_ERRORS.missingApiKey.message, code: expect.any(String) },
    });
  });

  it('401 for a wrong secret, to a node client sending 1 MB slowly', async () => {
    const answer = await slowPost(
      '/api/Subscriptions',
      { 'x-api-key': key.key, 'x-api-secret': 'not-the-secret' },
      1024 * 1024,
      16 * 1024,
      2,
    );
    expect(answer).toMatchObject({ status: 401, body: { error: SPEC_ERRORS.missingApiKey.error } });
  });

  it('413 for a declared 16 MiB + 1 byte body, to a node client sending all of it', async () => {
    const answer = await slowPost(
      '/api/Users/Register',
      { 'x-api-key': key.key, 'x-api-secret': key.secret },
      MAX_BODY_BYTES + 1,
      256 * 1024,
      0,
    );
    expect(answer).toMatchObject({ status: 413, connection: 'close', body: { code: 'payload_too_large', requestId: expect.any(String) } });
  });

  it('401 and 413 to curl uploading at a limited rate', async () => {
    const small = path.join(scratch, 'one-megabyte.json');
    writeFileSync(small, Buffer.alloc(1024 * 1024, 0x20));
    const refused = await curlUpload('/api/Dac/import', [`X-Api-Key: ${key.key}`], small, '2M');
    expect(refused).toMatchObject({ exitCode: 0, status: 401, body: { error: SPEC_ERRORS.missingApiKey.error } });

    const large = path.join(scratch, 'sixteen-mebibytes-and-one.json');
    writeFileSync(large, Buffer.alloc(MAX_BODY_BYTES + 1, 0x20));
    const tooLarge = await curlUpload('/api/Users/Register', [`X-Api-Key: ${key.key}`, `X-Api-Secret: ${key.secret}`], large, '8M');
    expect(tooLarge).toMatchObject({ exitCode: 0, status: 413, body: { code: 'payload_too_large' } });
  });
});
