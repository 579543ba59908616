import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { PGlite } from '@electric-sql/pglite';

// A new embedded database is PostgreSQL's initdb run in WebAssembly: most of a first `npm start`
// (about 5 s on a quiet 2-vCPU machine, 45 s on a busy one). Unpacking a copy of a database fresh
// from initdb is a fraction of it, so `npm ci` (scripts/prepare.mjs) makes that copy once, next
// to the PGlite it belongs to; a first start unpacks it. Without it (e.g. `npm ci --ignore-scripts`)
// the first start runs initdb as before.

/** <root>/node_modules/@electric-sql/pglite, found as node resolves it from here. */
function pglitePackageDir(): string {
  let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

/** Named after the PGlite version, so an upgraded PGlite never unpacks an older one's files. */
async function templateFile(): Promise<string> {
  const packageDir = pglitePackageDir();
  const { version } = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  return join(packageDir, '..', '..', '.cache', 'acs-platform', `pglite-${version}-initdb.tar.gz`);
}

/** The template's bytes when `dataDir` holds no database yet and a template was made; undefined otherwise. */
export async function pgliteTemplateFor(dataDir: string | undefined): Promise<Blob | undefined> {
  if (dataDir === undefined || existsSync(join(dataDir, 'PG_VERSION'))) return undefined;
  try {
    return new Blob([await readFile(await templateFile())]);
  } catch {
    return undefined; // none made: initdb it is
  }
}

/** Runs initdb once in memory and keeps the result as the template; returns its path. */
export async function makePgliteTemplate(): Promise<string> {
  const file = await templateFile();
  if (existsSync(file)) return file;
  const pglite = await PGlite.create();
  try {
    const dump = await pglite.dumpDataDir('gzip');
    await mkdir(dirname(file), { recursive: true });
    // Renamed into place: a template is whole or absent, never half written.
    await writeFile(`${file}.partial`, Buffer.from(await dump.arrayBuffer()));
    await rename(`${file}.partial`, file);
  } finally {
    await pglite.close();
  }
  return file;
}
