import { html, type SafeHtml } from './html.js';
import { layout, type Chrome } from './layout.js';

/** One message of identity's dev mailbox (DATA_DIR/identity/mailbox.jsonl). */
export interface MailboxMessage {
  sentAt: string;
  to: string;
  subject: string;
  text: string;
}

const URL_PATTERN = /(https?:\/\/[^\s<>"']+)/g;

/** The text with its links clickable (each part escaped by the template). */
function withLinks(text: string): SafeHtml[] {
  return text.split(URL_PATTERN).map((part, i) => (i % 2 === 1 ? html`<a href="${part}">${part}</a>` : html`${part}`));
}

/** `npm start` without SMTP: the mail identity sent, newest first, so reset links work offline. Local visitors only. */
export function mailboxPage(chrome: Chrome, messages: MailboxMessage[]): SafeHtml {
  return layout(
    'Dev mailbox',
    chrome,
    html`<p>Mail the platform sent while no SMTP server is configured (<code>SMTP_URL</code> unset), newest first. Only this machine sees this page.</p>
${messages.length === 0 ? html`<p>No mail yet.</p>` : ''}
${messages.map(
  (message) => html`<article class="mail">
  <h2>${message.subject}</h2>
  <p>To ${message.to}, <time datetime="${message.sentAt}">${message.sentAt}</time></p>
  <pre>${withLinks(message.text)}</pre>
</article>`,
)}`,
  );
}
