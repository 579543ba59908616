import type { AccountStatus } from '../account/account-status.js';
import type { UsageResponseBody } from '@acs/contracts';
import type { AccountSummary } from '../account/account-summary.js';
import { html, type SafeHtml } from './html.js';
import { formatTime, planTypeName, roleName } from './labels.js';
import { csrfField, layout, type Chrome } from './layout.js';
import { quotaBox } from './quota-usage.js';

const periodEnd = (status: AccountStatus): string =>
  status.subscription?.currentPeriodEnd ? `until ${formatTime(status.subscription.currentPeriodEnd)}` : 'for life';

/** Why keys can (or cannot) be managed now, in the user's terms. */
function keysReason(status: AccountStatus): SafeHtml {
  if (status.keysAllowed === null) return html`<p>The key service cannot be asked right now; try again in a moment.</p>`;
  if (!status.keysAllowed)
    return html`<p>API keys need an active subscription or trial, and you have neither. <a href="/subscriptions">Choose a plan</a>: keys work as soon as it is active.</p>`;
  if (status.subscription)
    return html`<p>Because your ${planTypeName(status.subscription.planType)} subscription is active ${periodEnd(status)}.</p>`;
  if (status.trialEndsAt)
    return html`<p>Because your trial runs until ${formatTime(status.trialEndsAt)}. After that, keys need a subscription.</p>`;
  return html`<p>Because your account is ${roleName(status.role)}.</p>`;
}

function keysBox(status: AccountStatus): SafeHtml {
  const verdict = status.keysAllowed
    ? html`<p class="yes">You can create and use API keys</p>`
    : html`<p class="no">You cannot ${status.keysAllowed === null ? 'see' : 'create or use'} API keys now</p>`;
  const count = status.keysAllowed
    ? html`<p><a href="/keys">${status.activeKeys} active key${status.activeKeys === 1 ? '' : 's'}</a>${status.revokedKeys > 0 ? ` (${status.revokedKeys} revoked)` : ''}</p>`
    : '';
  return html`<li><h2>API keys</h2>${verdict}${keysReason(status)}${count}</li>`;
}

function subscriptionBox(status: AccountStatus): SafeHtml {
  const sub = status.subscription;
  const body = sub
    ? html`<p class="yes">${planTypeName(sub.planType)}, active ${periodEnd(status)}</p><p>${sub.cancelAtPeriodEnd ? 'Canceled: it is not renewed.' : sub.currentPeriodEnd ? 'Renewed at the end of each period.' : 'Paid once; it never ends.'}</p>`
    : status.trialEndsAt
      ? html`<p class="yes">Trial until ${formatTime(status.trialEndsAt)}</p><p>No subscription yet.</p>`
      : html`<p class="no">No subscription or trial</p>`;
  return html`<li><h2>Subscription</h2>${body}<p><a href="/subscriptions">Compare the plans</a></p></li>`;
}

function usageBox(status: AccountStatus): SafeHtml {
  const since = status.subscription
    ? `since this period began (${status.periodStart})`
    : `in the last 30 days (since ${status.periodStart})`;
  const figure =
    status.periodRequests === null
      ? html`<p>The usage cannot be read right now.</p>`
      : html`<p><strong>${status.periodRequests.toLocaleString('en-US')}</strong> request${status.periodRequests === 1 ? '' : 's'} by your keys ${since}.</p>`;
  return html`<li><h2>Usage</h2>${figure}<p>Each key's page has its chart per day and its requests per operation.</p></li>`;
}

/** An unverified address (issue 32): said first, with the way to a new link. */
function verificationBox(chrome: Chrome, emailVerified: boolean | null): SafeHtml {
  if (emailVerified !== false) return html``;
  return html`<section class="notice" aria-labelledby="verify-heading">
  <h2 id="verify-heading">Your e-mail address is not verified</h2>
  <p>Open the link we sent you at registration. Some features (such as creating API keys) may need a verified address.</p>
  <form method="post" action="/account/verification">${csrfField(chrome.csrfToken)}<button type="submit">Send the link again</button></form>
</section>`;
}

/** What the user can do now and why: role, trial, subscription, keys in use, this period's usage and quota. */
export function overviewPage(
  chrome: Chrome,
  account: AccountSummary,
  status: AccountStatus,
  quota: UsageResponseBody | null = null,
  emailVerified: boolean | null = null,
): SafeHtml {
  return layout(
    'Overview',
    chrome,
    html`${verificationBox(chrome, emailVerified)}
<ul class="can-do">
${keysBox(status)}
${subscriptionBox(status)}
<li><h2>Devices</h2><p class="yes">You can register devices</p><p>Every account can. <a href="/devices">Your devices</a></p></li>
${usageBox(status)}
${quotaBox(quota)}
</ul>
<h2>Your account</h2>
<dl class="facts">
  <dt>Signed in as</dt><dd>${account.email}</dd>
  <dt>Role</dt><dd>${roleName(status.role)}</dd>
  <dt>Trial</dt><dd>${status.trialEndsAt ? `active until ${formatTime(status.trialEndsAt)}` : 'none running'}</dd>
  <dt>User id</dt><dd>${account.userId}</dd>
  <dt>Signed in until</dt><dd>${formatTime(account.expiresAt)}</dd>
</dl>
<p><a href="/account/sessions">Where you are signed in</a> · <a href="/account/password">Change your password</a> · <a href="/account/two-factor">Two-factor sign-in</a> · <a href="/account/export">Download your data (JSON)</a> · <a href="/account/delete">Delete your account</a></p>`,
  );
}
