import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { classifyApiSecret, generateApiKey, generateApiSecret } from '@acs/auth';

// The gitleaks rule docs/key-format.md ships (issue 31.1): read from the page itself, so the page and this test
// cannot drift apart. It must find every secret we make, and nothing else of ours but the page's example.

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGE = 'docs/key-format.md';
const page = readFileSync(path.join(ROOT, PAGE), 'utf8');

/** The rule's regex and keywords from the page's ```toml block (gitleaks: RE2, which this regex shares with JS). */
function ruleOf(text: string): { id: string; regex: RegExp; keywords: string[] } {
  const toml = /```toml\n([\s\S]*?)```/.exec(text)?.[1];
  if (!toml) throw new Error(`${PAGE} has no toml block`);
  expect(toml).toMatch(/^\[\[rules\]\]$/m);
  const id = /^id = "([^"]+)"$/m.exec(toml)?.[1];
  const regex = /^regex = '''(.+)'''$/m.exec(toml)?.[1];
  const keywords = /^keywords = \[(.+)\]$/m.exec(toml)?.[1];
  if (!id || !regex || !keywords) throw new Error(`the rule in ${PAGE} needs id, regex and keywords`);
  return { id, regex: new RegExp(regex, 'g'), keywords: [...keywords.matchAll(/"([^"]+)"/g)].map((m) => m[1]!) };
}

const rule = ruleOf(page);
const example = /```\n(acs_[a-z]+_[0-9A-Za-z]+)\n```/.exec(page)?.[1];

/** Tracked files that are text (no NUL byte in their first 8000 bytes, as git itself decides). */
function trackedTextFiles(): { file: string; text: string }[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).split('\0');
  return files
    .filter((file) => file.length > 0)
    .flatMap((file) => {
      let bytes: Buffer;
      try {
        bytes = readFileSync(path.join(ROOT, file));
      } catch {
        return []; // deleted in the work tree, or a submodule
      }
      return bytes.subarray(0, 8000).includes(0) ? [] : [{ file, text: bytes.toString('utf8') }];
    });
}

const matchesIn = (text: string): string[] => [...text.matchAll(rule.regex)].map((m) => m[1] ?? m[0]);

describe(`the gitleaks rule in ${PAGE}`, () => {
  it('finds every freshly generated secret, whole, through one of its keywords', () => {
    for (let i = 0; i < 500; i++) {
      for (const environment of ['live', 'test'] as const) {
        const secret = generateApiSecret('acs', environment);
        expect(matchesIn(`X-Api-Secret: ${secret}\n`)).toEqual([secret]);
        expect(matchesIn(`"${secret}"`)).toEqual([secret]);
        expect(rule.keywords.some((keyword) => secret.includes(keyword))).toBe(true);
      }
    }
  });

  it('does not take a key value (not secret) for a secret', () => {
    for (let i = 0; i < 200; i++) expect(matchesIn(`X-Api-Key: ${generateApiKey('acs', 'live')}\n`)).toEqual([]);
  });

  it('shows an example that is a valid secret of the format', () => {
    expect(example).toBeDefined();
    expect(classifyApiSecret(example!, 'acs', 'live')).toBe('valid');
  });

  it("matches nothing in the repository's tracked files but the page's example", () => {
    const found = trackedTextFiles().flatMap(({ file, text }) => matchesIn(text).map((match) => ({ file, match })));
    expect(found.length).toBeGreaterThan(0);
    for (const finding of found) expect(finding).toEqual({ file: PAGE, match: example });
  });
});
