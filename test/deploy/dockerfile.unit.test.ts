import { describe, expect, it } from '@jest/globals';
import { readdirSync } from 'node:fs';
import { COMPONENTS, ROOT, readRepoFile, repoFileExists } from './components.js';

// The Dockerfile read as instructions per stage (continuation lines joined, comments dropped).

interface Stage {
  name: string | undefined;
  from: string;
  instructions: { op: string; args: string }[];
}

function parseDockerfile(text: string): { args: Map<string, string>; stages: Stage[] } {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const upper = op.toUpperCase();
    if (upper === 'FROM') {
      const [image = '', , name] = rest.split(/\s+/);
      stages.push({ name, from: image, instructions: [] });
    } else if (upper === 'ARG' && stages.length === 0) {
      const [name = '', value = ''] = rest.split('=');
      args.set(name, value);
    } else stages.at(-1)?.instructions.push({ op: upper, args: rest });
  }
  return { args, stages };
}

/**
 * The repository paths (globs as written) that reach the runtime stage's /app: the build stage's
 * `cp -r --parents <paths> /out/`, when the runtime stage copies that /out/ in.
 */
function runtimePaths(text: string): string[] {
  const { stages: all } = parseDockerfile(text);
  const final = all.at(-1)!;
  const paths: string[] = [];
  for (const copy of final.instructions.filter((i) => i.op === 'COPY')) {
    const [, from = '', source = ''] = /--from=(\S+)\s+(\S+)/.exec(copy.args) ?? [];
    const stage = all.find((st) => st.name === from);
    if (!stage) continue;
    for (const run of stage.instructions.filter((i) => i.op === 'RUN')) {
      for (const command of run.args.split('&&')) {
        const words = command.trim().split(/\s+/);
        if (words[0] !== 'cp' || !words.includes('--parents')) continue;
        const destination = words.at(-1)!;
        if (destination.replace(/\/$/, '') !== source.replace(/\/$/, '')) continue;
        paths.push(...words.slice(1, -1).filter((word) => !word.startsWith('-')));
      }
    }
  }
  return paths;
}

/** `services/*\/dist` matches `services/dashboard/dist`. */
const globMatches = (glob: string, path: string): boolean =>
  new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]+')}$`).test(path);

/** Each process's run-time files (`<dir>/dist`, and `<dir>/public` when it has one) that the runtime stage lacks. */
function missingRuntimeFiles(text: string): string[] {
  const copied = runtimePaths(text);
  const needed = COMPONENTS.flatMap((c) => [`${c.dir}/dist`, ...(repoFileExists(`${c.dir}/public`) ? [`${c.dir}/public`] : [])]);
  return needed.filter((path) => !copied.some((glob) => globMatches(glob, path)));
}

const { args, stages } = parseDockerfile(readRepoFile('Dockerfile'));
const runtime = stages.at(-1)!;
const byName = (name: string) => stages.find((stage) => stage.name === name);
const resolveImage = (from: string) => from.replace(/\$\{(\w+)\}/g, (_all, name: string) => args.get(name) ?? '');
const runs = (stage: Stage) => stage.instructions.filter((i) => i.op === 'RUN').map((i) => i.args);

describe('Dockerfile', () => {
  it('builds on node:20-bookworm-slim in every stage that is not another stage', () => {
    for (const stage of stages) {
      if (byName(stage.from)) continue;
      expect(resolveImage(stage.from)).toBe('node:20-bookworm-slim');
    }
    expect(byName(runtime.from)).toBeUndefined();
  });

  it('installs with the lockfile (npm ci, never npm install) and builds with npm run build', () => {
    const all = stages.flatMap(runs).join('\n');
    expect(all).not.toMatch(/npm (install|i)\b/);
    expect(all).toMatch(/npm ci\b/);
    expect(all).toMatch(/npm run build/);
  });

  it('the runtime stage runs as a non-root user, with NODE_ENV=production', () => {
    const user = runtime.instructions.filter((i) => i.op === 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(user!.split(':')[0]).not.toMatch(/^(root|0)$/);
    expect(runtime.instructions.some((i) => i.op === 'ENV' && /\bNODE_ENV=production\b/.test(i.args))).toBe(true);
  });

  it('the runtime stage holds production dependencies only', () => {
    // Whole app trees copied into the runtime come from stages whose npm ci omitted dev dependencies.
    const copies = runtime.instructions.filter((i) => i.op === 'COPY' && i.args.includes('--from='));
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      const [, from = '', source = ''] = /--from=(\S+)\s+(\S+)/.exec(copy.args) ?? [];
      const stage = byName(from);
      expect(stage).toBeDefined();
      const npmCi = runs(stage!).filter((run) => /npm ci\b/.test(run));
      if (source.replace(/\/$/, '') === '/app') expect(npmCi.every((run) => run.includes('--omit=dev'))).toBe(true);
      if (npmCi.some((run) => !run.includes('--omit=dev'))) expect(source).not.toMatch(/^\/app\/?$|node_modules/);
    }
  });

  it('copies what the processes read at run time: compiled code, migrations, the catalog seed', () => {
    const text = readRepoFile('Dockerfile');
    for (const path of ['libs/*/dist', 'services/*/dist', 'gateway/dist', 'services/*/migrations', 'services/catalog/seed'])
      expect(text).toContain(path);
  });

  it('copies each process’s compiled code and its public/ assets (the dashboard’s stylesheet) into the runtime stage', () => {
    expect(runtimePaths(readRepoFile('Dockerfile'))).toContain('services/dashboard/public');
    expect(missingRuntimeFiles(readRepoFile('Dockerfile'))).toEqual([]);
  });

  it('a process’s public/ assets or code left out of the runtime copy is caught', () => {
    const text = readRepoFile('Dockerfile');
    expect(missingRuntimeFiles(text.replace(/\s+services\/dashboard\/public(?= )/, ''))).toEqual(['services/dashboard/public']);
    expect(missingRuntimeFiles(text.replace(' services/*/dist ', ' services/keys/dist '))).toEqual(
      COMPONENTS.filter((c) => c.dir.startsWith('services/') && c.dir !== 'services/keys').map((c) => `${c.dir}/dist`),
    );
  });

  it('bakes in no secret: no secret-looking ENV or ARG, no env file copied', () => {
    for (const stage of stages) {
      for (const i of stage.instructions) {
        if (i.op === 'ENV' || i.op === 'ARG') expect(i.args).not.toMatch(/SECRET|PASSWORD|TOKEN|SIGNING_KEY|API_KEY|_URL/);
        if (i.op === 'COPY' || i.op === 'ADD') expect(i.args).not.toMatch(/\.env\b/);
      }
    }
  });

  it('.dockerignore keeps dependencies, build output, local data, git and secrets out of the context', () => {
    const ignored = readRepoFile('.dockerignore')
      .split('\n')
      .map((line) => line.trim());
    for (const pattern of ['**/node_modules', '**/dist', '.data', '.git', 'coverage', '.env', 'k8s/secret.yaml'])
      expect(ignored).toContain(pattern);
  });

  it('.dockerignore keeps the run-time assets (public/) in the context', () => {
    // Docker's rules as far as this file uses them: `**/` any folders, `*` within one name, and a
    // matched folder takes its contents with it.
    const patterns = readRepoFile('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#') && !line.startsWith('!'));
    const toRegExp = (pattern: string) =>
      new RegExp(
        `^${pattern
          .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
          .replace(/\*\*\//g, '\u0000')
          .replace(/\*/g, '[^/]*')
          // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL marks a `**/` while `*` is rewritten; no pattern contains one
          .replace(/\u0000/g, '(.*/)?')}(/.*)?$`,
      );
    const excluded = (path: string) => patterns.some((pattern) => toRegExp(pattern).test(path));
    expect(excluded('services/dashboard/dist/main.js')).toBe(true); // the matcher works
    const assets = COMPONENTS.filter((c) => repoFileExists(`${c.dir}/public`)).flatMap((c) =>
      readdirSync(new URL(`${c.dir}/public/`, ROOT)).map((file) => `${c.dir}/public/${file}`),
    );
    expect(assets).toContain('services/dashboard/public/dashboard.css');
    expect(assets.filter(excluded)).toEqual([]);
  });
});
