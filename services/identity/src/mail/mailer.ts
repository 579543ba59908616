/** One message identity sends (a reset link, a verification link): plain text, one recipient. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Where mail goes: an SMTP server (SMTP_URL), or the dev mailbox file that `npm start` and its dashboard use. */
export interface Mailer {
  /** What the start-up line says about where mail goes (never the SMTP credentials). */
  describe: string;
  send(mail: Mail): Promise<void>;
  close(): void;
}
