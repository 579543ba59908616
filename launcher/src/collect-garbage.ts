import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * One full garbage collection, once, after an embedded start. PGlite's initdb (first start) runs in
 * a WebAssembly instance of its own, several hundred MB that are garbage once the database exists;
 * V8 may keep them resident for a long while, since nothing else asks for memory. Collecting now
 * returns them (first start: ~700 MB down to ~300). `--expose-gc` set at run time, so `npm start`
 * and a plain `node launcher/dist/main.js` behave the same.
 */
export function collectGarbageOnce(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  gc?.();
}
