import type { SessionView } from '@acs/contracts';
import { html, type SafeHtml } from './html.js';
import { formatTime } from './labels.js';
import { csrfField, layout, type Chrome } from './layout.js';

/** One sign-in: where from and when, and a button that ends it (the current one says so instead). */
function sessionRow(chrome: Chrome, session: SessionView): SafeHtml {
  const action = session.current
    ? html`This browser`
    : html`<form method="post" action="/account/sessions/${session.id}/end">${csrfField(chrome.csrfToken)}<button type="submit" aria-label="End the session of ${session.device}, signed in ${formatTime(session.createdAt)}">End</button></form>`;
  return html`<tr>
  <td data-label="Device">${session.device}</td>
  <td data-label="Address">${session.address ?? 'unknown'}</td>
  <td data-label="Signed in">${formatTime(session.createdAt)}</td>
  <td data-label="Last seen">${formatTime(session.lastSeenAt)}</td>
  <td data-label="">${action}</td>
</tr>`;
}

/** The user's live sign-ins (issue 32): end one, or all but this browser. */
export function sessionsPage(chrome: Chrome, sessions: SessionView[]): SafeHtml {
  const others = sessions.filter((session) => !session.current).length;
  return layout(
    'Where you are signed in',
    chrome,
    html`<p>Each sign-in (a browser, an app) is listed until it ends or expires. Ending one signs it out at its next request.</p>
<table class="sessions responsive">
  <caption class="visually-hidden">Your sessions</caption>
  <thead><tr><th scope="col">Device</th><th scope="col">Address</th><th scope="col">Signed in</th><th scope="col">Last seen</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
  <tbody>${sessions.map((session) => sessionRow(chrome, session))}</tbody>
</table>
${others > 0 ? html`<form method="post" action="/account/sessions/end-others">${csrfField(chrome.csrfToken)}<button type="submit">End all other sessions (${others})</button></form>` : html`<p>No other sessions.</p>`}`,
  );
}
