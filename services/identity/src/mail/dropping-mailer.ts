import type { Logger } from '@acs/logger';
import type { Mailer } from './mailer.js';

/**
 * Where mail goes when it can go nowhere (no SMTP_URL, a dev mailbox that cannot be written): each
 * message is dropped with the reason logged as an error (never its text: it holds a link that acts
 * for the user), and the request that sent it succeeds as usual; the start-up line says so too.
 */
export function createDroppingMailer(logger: Logger, problem: string): Mailer {
  return {
    describe: `nowhere: ${problem}`,
    async send(mail) {
      logger.error({ subject: mail.subject, problem }, 'mail dropped: identity has no SMTP_URL and no writable dev mailbox');
    },
    close: () => undefined,
  };
}
