import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** `public/` beside `src/` and `dist/`, so the same path works from the sources (tests) and the build. */
const STYLESHEET_FILE = fileURLToPath(new URL('../public/dashboard.css', import.meta.url));

export const loadStylesheet = (): Promise<Buffer> => readFile(STYLESHEET_FILE);

/** The page icon (browsers ask for one; without it every page load logs a 404). */
const ICON_FILE = fileURLToPath(new URL('../public/icon.svg', import.meta.url));

export const loadIcon = (): Promise<Buffer> => readFile(ICON_FILE);
