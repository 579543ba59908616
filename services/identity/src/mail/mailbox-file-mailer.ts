import { constants } from 'node:fs';
import { access, appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Mailer } from './mailer.js';

/** One line of the dev mailbox (JSON Lines): what the dashboard's local mailbox page lists. */
export interface MailboxEntry {
  sentAt: string;
  from: string;
  to: string;
  subject: string;
  text: string;
}

/**
 * Without SMTP_URL, mail is appended to a JSON Lines file (0600: it holds reset links) that the
 * dashboard shows at a local-only page, so the reset and verification flows work offline under `npm start`.
 */
export function createMailboxFileMailer(file: string, from: string): Mailer {
  return {
    describe: `the dev mailbox ${file}`,
    async send(mail) {
      const entry: MailboxEntry = { sentAt: new Date().toISOString(), from, ...mail };
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      await appendFile(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    },
    close: () => undefined,
  };
}

/** Where `npm start` keeps sent mail when no SMTP server is configured. */
export const devMailboxFile = (dataDir: string): string => path.join(dataDir, 'identity', 'mailbox.jsonl');

/**
 * Without SMTP_URL, mail can only go to the dev mailbox. Null when its folder can be written, else why
 * not, naming SMTP_URL (a read-only container without SMTP_URL): identity then starts with a mailer
 * that drops mail with that error logged (dropping-mailer.ts), so no request ever fails on it.
 */
export async function mailboxProblem(file: string): Promise<string | null> {
  const dir = path.dirname(file);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await access(dir, constants.W_OK);
    return null;
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? String(err);
    return (
      `SMTP_URL is unset, so mail (verification and password reset links) would go to the dev mailbox ${file}, ` +
      `but ${dir} cannot be written (${reason}): mail is dropped. Set SMTP_URL to an SMTP server, or give identity a writable DATA_DIR.`
    );
  }
}
