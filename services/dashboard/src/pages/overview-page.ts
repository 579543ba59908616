import type { AccountSummary } from '../account/account-summary.js';
import { html, type SafeHtml } from './html.js';
import { formatTime, planTypeName, roleName } from './labels.js';
import { layout, type Chrome } from './layout.js';

export function overviewPage(chrome: Chrome, account: AccountSummary): SafeHtml {
  const trial = account.trialExpiresAt
    ? html`<dt>Trial</dt><dd>active until ${formatTime(account.trialExpiresAt)}</dd>`
    : html`<dt>Trial</dt><dd>none</dd>`;
  return layout(
    'Overview',
    chrome,
    html`<dl class="facts">
  <dt>Signed in as</dt><dd>${account.email}</dd>
  <dt>User id</dt><dd>${account.userId}</dd>
  <dt>Role</dt><dd>${roleName(account.role)}</dd>
  <dt>Plan</dt><dd>${planTypeName(account.planType)}</dd>
  ${trial}
  <dt>Signed in until</dt><dd>${formatTime(account.expiresAt)}</dd>
</dl>
<p class="hint">Role and plan are as of your sign-in. A subscription you take or cancel applies to your API calls at once; sign in again to see it here.</p>
<ul class="sections">
  <li><a href="/keys">API keys</a>: create keys for your applications, change their scopes, revoke them.</li>
  <li><a href="/subscriptions">Subscriptions</a>: plans, your subscriptions, cancellation.</li>
  <li><a href="/devices">Devices</a>: the devices registered to your account.</li>
</ul>`,
  );
}
