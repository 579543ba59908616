import { describe, expect, it } from '@jest/globals';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@acs/logger';
import { makeDataDirPrivate } from '../src/data-dir-privacy.js';

const modeOf = (path: string): number => statSync(path).mode & 0o777;

describe('makeDataDirPrivate', () => {
  it('takes the group and other bits off every folder and file of a DATA_DIR an older version left open, and says so once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'acs-private-'));
    try {
      mkdirSync(join(dir, 'pglite', 'base'), { recursive: true });
      writeFileSync(join(dir, 'pglite', 'base', 'table'), 'rows');
      writeFileSync(join(dir, 'internal-secret'), 'secret');
      chmodSync(dir, 0o755);
      chmodSync(join(dir, 'pglite'), 0o777);
      chmodSync(join(dir, 'pglite', 'base'), 0o755);
      chmodSync(join(dir, 'pglite', 'base', 'table'), 0o666);
      chmodSync(join(dir, 'internal-secret'), 0o640);
      symlinkSync('/tmp', join(dir, 'link'));
      const lines: string[] = [];
      const logger = createLogger({ name: 'test', level: 'warn', destination: { write: (line: string) => lines.push(line) } });
      await makeDataDirPrivate(dir, logger);
      expect([dir, join(dir, 'pglite'), join(dir, 'pglite', 'base')].map(modeOf)).toEqual([0o700, 0o700, 0o700]);
      expect(modeOf(join(dir, 'pglite', 'base', 'table'))).toBe(0o600);
      expect(modeOf(join(dir, 'internal-secret'))).toBe(0o600);
      expect(modeOf('/tmp')).toBe(0o777); // a link's target is not ours to change
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('made DATA_DIR private: 5 folders and files');
      await makeDataDirPrivate(dir, logger);
      expect(lines).toHaveLength(1); // nothing left to tighten: no second line
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
