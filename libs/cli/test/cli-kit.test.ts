import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '@acs/config';
import { UsageError, assertNoOperands, executeCli, openCliStore, serveSystemSocket } from '@acs/cli';
import { createMemoryCache } from '@acs/cache';
import { openServiceDatabase } from '@acs/db';
import { createLogger } from '@acs/logger';
import { createTestDatabase } from '@acs/testing';

let printed: string[];
let errors: string[];
beforeEach(() => {
  printed = [];
  errors = [];
  jest.spyOn(console, 'log').mockImplementation((line: unknown) => void printed.push(String(line)));
  jest.spyOn(console, 'error').mockImplementation((line: unknown) => void errors.push(String(line)));
});
afterEach(() => {
  jest.restoreAllMocks();
});

const seen: unknown[] = [];
const definition = {
  help: 'Usage: tool <greet|fail>',
  commands: ['greet', 'fail'],
  options: { name: { type: 'string' }, loud: { type: 'boolean' } },
  async run({ command, operands, values }: { command: string; operands: string[]; values: { name?: string; loud?: boolean } }) {
    seen.push({ command, operands, values });
    if (command === 'fail') return false;
    assertNoOperands(operands);
    if (!values.name) throw new UsageError('greet needs --name NAME');
    console.log(values.loud ? `HELLO ${values.name}` : `hello ${values.name}`);
    return true;
  },
} as const;

describe('executeCli', () => {
  it('prints the help for --help, -h and no command, and exits 0', async () => {
    for (const argv of [['--help'], ['-h'], [], ['greet', '--help']]) expect(await executeCli(definition, argv)).toBe(0);
    expect(printed).toEqual(Array(4).fill('Usage: tool <greet|fail>'));
    expect(errors).toEqual([]);
  });

  it('runs a command with its options and operands', async () => {
    expect(await executeCli(definition, ['greet', '--name', 'Ada', '--loud'])).toBe(0);
    expect(printed).toEqual(['HELLO Ada']);
  });

  it('turns usage errors, unknown commands and options into one line on stderr and exit 1', async () => {
    expect(await executeCli(definition, ['greet'])).toBe(1);
    expect(await executeCli(definition, ['wave'])).toBe(1);
    expect(await executeCli(definition, ['greet', '--name', 'Ada', '--color', 'red'])).toBe(1);
    expect(await executeCli(definition, ['greet', 'extra', '--name', 'Ada'])).toBe(1);
    expect(errors[0]).toBe('greet needs --name NAME');
    expect(errors[1]).toBe('Unknown command "wave". Run with --help.');
    expect(errors[2]).toMatch(/^Unknown option '--color'.*\. Run with --help\.$/s);
    expect(errors[3]).toBe('Unexpected argument "extra". Run with --help.');
    expect(errors.join('\n')).not.toMatch(/\n\s+at /);
    expect(printed).toEqual([]);
  });

  it('exits 1 without a message of its own when the command reports its failure', async () => {
    expect(await executeCli(definition, ['fail'])).toBe(1);
    expect(errors).toEqual([]);
  });
});

describe('openCliStore', () => {
  const MIGRATIONS = { '001_notes.sql': 'CREATE TABLE notes (id bigserial PRIMARY KEY);\n' };
  let dir: string;
  let migrationsDir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-store-'));
    migrationsDir = join(dir, 'migrations');
    await mkdir(migrationsDir);
    await Promise.all(Object.entries(MIGRATIONS).map(([name, sql]) => writeFile(join(migrationsDir, name), sql)));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('opens its schema of the embedded database under DATA_DIR/pglite, migrated, with a cache of its own', async () => {
    const dataDir = join(dir, 'data');
    const store = await openCliStore({
      service: 'notes',
      cli: 'notes cli',
      migrationsDir,
      sharedCache: true,
      environment: { DATA_DIR: dataDir },
    });
    try {
      expect(store.db.kind).toBe('pglite');
      expect((await store.db.query('SELECT count(*)::int AS n FROM notes')).rows).toEqual([{ n: 0 }]);
      expect(store.cacheNotShared).toBe(false);
    } finally {
      await store.close();
    }
    expect(await readdir(dataDir)).toEqual(['pglite']);
  }, 120_000);

  it("while a system runs on DATA_DIR, goes through its socket: the system's database and cache, transactions and SQL errors included", async () => {
    const dataDir = join(dir, 'data');
    const logger = createLogger({ name: 'test', level: 'silent' });
    const systemDb = await openServiceDatabase({ service: 'notes', dataDir, migrationsDir, logger });
    const systemCache = createMemoryCache();
    const socket = await serveSystemSocket({ dataDir, databases: { notes: systemDb }, cache: systemCache, logger });
    // A live pid other than ours stands for the running system (the lock ignores its own process).
    await writeFile(join(dataDir, 'system.pid'), String(process.ppid));
    try {
      const store = await openCliStore({
        service: 'notes',
        cli: 'notes cli',
        migrationsDir,
        sharedCache: true,
        environment: { DATA_DIR: dataDir },
      });
      try {
        const id = await store.db.transaction(
          async (tx) => (await tx.query<{ id: number }>('INSERT INTO notes DEFAULT VALUES RETURNING id')).rows[0]!.id,
        );
        await expect(store.db.query('INSERT INTO notes (id) VALUES ($1)', [id])).rejects.toMatchObject({ code: '23505' });
        await expect(
          store.db.transaction(async (tx) => {
            await tx.query('INSERT INTO notes DEFAULT VALUES');
            throw new Error('changed my mind');
          }),
        ).rejects.toThrow('changed my mind');
        await store.cache.set('note:1', 'cached by the CLI');
        expect(store.cacheNotShared).toBe(false);
      } finally {
        await store.close();
      }
      expect((await systemDb.query('SELECT count(*)::int AS n FROM notes')).rows).toEqual([{ n: 1 }]);
      expect(await systemCache.get('note:1')).toBe('cached by the CLI');
    } finally {
      await socket.close();
      await systemDb.close();
      await systemCache.close();
    }
  }, 120_000); // PGlite's first start compiles its WebAssembly: seconds alone, more on a busy machine

  it("prefers <SERVICE>_DATABASE_URL, parses the extra variables, and says when the cache is not the gateway's", async () => {
    const database = await createTestDatabase('cli_store');
    try {
      const store = await openCliStore({
        service: 'notes',
        cli: 'notes cli',
        migrationsDir,
        sharedCache: true,
        env: { NOTE_PREFIX: z.string().default('n-') },
        environment: { NOTES_DATABASE_URL: database.url, DATABASE_URL: 'postgres://127.0.0.1:1/unused', DATA_DIR: join(dir, 'unused') },
      });
      try {
        expect(store.db.kind).toBe('postgres');
        expect(store.env.NOTE_PREFIX).toBe('n-');
        expect(store.cacheNotShared).toBe(true);
      } finally {
        await store.close();
      }
    } finally {
      await database.drop();
    }
  });

  it('names a bad variable', async () => {
    await expect(
      openCliStore({ service: 'notes', cli: 'notes cli', migrationsDir, sharedCache: true, environment: { REDIS_URL: 'http://nope' } }),
    ).rejects.toThrow(ConfigError);
    await expect(
      openCliStore({ service: 'notes', cli: 'notes cli', migrationsDir, sharedCache: true, environment: { REDIS_URL: 'http://nope' } }),
    ).rejects.toThrow(/notes cli: invalid configuration\n {2}REDIS_URL: /);
  });
});
