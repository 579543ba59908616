import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { checkReportSignature, loadScannerKeys } from '../src/domain/scanner-signature.js';

// Issue 31: the scanners' public keys as the operator gives them, and the signature check before anything else.
const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const pem = pair.publicKey.export({ type: 'spki', format: 'pem' }) as string;
const body = Buffer.from('[{"token":"x","type":"t","url":null,"source":"content"}]');
const signature = sign('sha256', body, pair.privateKey).toString('base64');
const codeOf = (check: () => void): string | undefined => {
  try {
    check();
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code;
  }
};

describe('scanner public keys and report signatures', () => {
  it("reads a list, GitHub's {public_keys} answer, or a file; none configured is an empty set (reports off)", () => {
    expect([...loadScannerKeys(JSON.stringify([{ key_identifier: 'k1', key: pem }]), undefined).keys()]).toEqual(['k1']);
    const github = JSON.stringify({ public_keys: [{ key_identifier: 'k2', key: pem, is_current: true }] });
    expect([...loadScannerKeys(github, undefined).keys()]).toEqual(['k2']);
    const dir = mkdtempSync(join(tmpdir(), 'scanner-keys-'));
    try {
      writeFileSync(join(dir, 'keys.json'), github);
      expect([...loadScannerKeys(undefined, join(dir, 'keys.json')).keys()]).toEqual(['k2']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(loadScannerKeys(undefined, undefined).size).toBe(0);
    expect(() => loadScannerKeys('[{"key_identifier":"k"}]', undefined)).toThrow();
  });

  it('accepts only a DER ECDSA signature over the exact bytes by a configured key', () => {
    const keys = loadScannerKeys(JSON.stringify([{ key_identifier: 'k1', key: pem }]), undefined);
    expect(codeOf(() => checkReportSignature(keys, 'k1', signature, body))).toBeUndefined();
    expect(codeOf(() => checkReportSignature(keys, null, signature, body))).toBe('signature_missing');
    expect(codeOf(() => checkReportSignature(keys, 'k1', null, body))).toBe('signature_missing');
    expect(codeOf(() => checkReportSignature(keys, 'k9', signature, body))).toBe('unknown_signing_key');
    expect(codeOf(() => checkReportSignature(keys, 'k1', signature, Buffer.concat([body, Buffer.from(' ')])))).toBe('invalid_signature');
    expect(codeOf(() => checkReportSignature(keys, 'k1', 'bm90IGEgc2lnbmF0dXJl', body))).toBe('invalid_signature');
  });
});
