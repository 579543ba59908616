import nodemailer from 'nodemailer';
import type { Mailer } from './mailer.js';

/** SMTP through nodemailer: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://...:465`. */
export function createSmtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport(url);
  const { protocol, hostname, port } = new URL(url);
  return {
    describe: `${protocol}//${hostname}${port ? `:${port}` : ''}`,
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    close: () => transport.close(),
  };
}
