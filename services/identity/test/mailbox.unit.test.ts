import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { captureLogger } from '@acs/testing';
import { createMailboxFileMailer, devMailboxFile, mailboxProblem } from '../src/mail/mailbox-file-mailer.js';
import { createDroppingMailer } from '../src/mail/dropping-mailer.js';

// Issue 32: without SMTP_URL identity keeps mail in DATA_DIR's dev mailbox; where that cannot be
// written (a read-only container) mail is dropped with an error that names SMTP_URL, and sending never fails.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'acs-mailbox-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('the dev mailbox', () => {
  it('a writable DATA_DIR has no problem and receives the mail', async () => {
    const file = devMailboxFile(path.join(dir, 'data'));
    expect(await mailboxProblem(file)).toBeNull();
    await createMailboxFileMailer(file, 'noreply@example.com').send({ to: 'a@example.com', subject: 'Hi', text: 'x' });
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ to: 'a@example.com', subject: 'Hi' });
  });

  it('a DATA_DIR that cannot be written: the problem names SMTP_URL, and mail is dropped with an error, never a failure', async () => {
    // A file where the folder should be: no directory can be made there, whoever runs the test (root too).
    const blocked = path.join(dir, 'not-a-folder');
    await writeFile(blocked, '');
    const problem = await mailboxProblem(devMailboxFile(blocked));
    expect(problem).toMatch(/SMTP_URL is unset.*cannot be written \(ENOTDIR\): mail is dropped/);
    const logs = captureLogger();
    const mailer = createDroppingMailer(logs.logger, problem!);
    await expect(mailer.send({ to: 'a@example.com', subject: 'Reset your password', text: 'secret-link' })).resolves.toBeUndefined();
    expect(logs.text()).toContain('mail dropped');
    expect(logs.text()).not.toContain('secret-link');
  });
});
