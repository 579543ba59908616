import { accessSync, constants } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

/** Debian's `chromium` package; CHROMIUM_PATH points elsewhere (another distribution's build). */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The machine has no network: without these Chromium spends its time on connection attempts
 * (QUIC, component updates, sync, field trials) and a launch can hang.
 */
const OFFLINE_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * The browser tests' Chromium. Missing, it is a failure with the way to install it, never a skip:
 * the proof that a person can use the dashboard must not quietly disappear from a run.
 */
export async function launchChromium(): Promise<Browser> {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
  } catch {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_PATH}; the dashboard's browser tests need it. Install it with ` +
        '`sudo bash scripts/install-chromium.sh` (Debian: apt-get install chromium), or set CHROMIUM_PATH to a Chromium binary.',
    );
  }
  // launch() gives every run a fresh temporary profile (user-data-dir) and deletes it on close.
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: OFFLINE_ARGS, timeout: 60_000 });
}

/** git-ignored; the tests write a picture of each page there for a reviewer. */
const SCREENSHOT_DIR = fileURLToPath(new URL('../../../test-artifacts/screenshots/', import.meta.url));

export async function screenshotDir(): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  return SCREENSHOT_DIR;
}
