import { appendFile, mkdir } from 'node:fs/promises';
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
