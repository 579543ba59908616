import { html, type SafeHtml } from './html.js';
import { layout, type Chrome } from './layout.js';

/** What a visitor who is not signed in sees at `/`: what this is, and the two ways in. */
export function landingPage(chrome: Chrome): SafeHtml {
  return layout(
    'Your audio platform account',
    chrome,
    html`<p class="lead">This is where developers and owners of our audio hardware manage their account on the audio platform: the API keys their applications use, their subscription, and the devices registered to them.</p>
<ul class="sections">
  <li><strong>API keys</strong>: create keys for your applications, choose what each may do, revoke them.</li>
  <li><strong>Subscriptions</strong>: see the plans and choose, change or cancel yours.</li>
  <li><strong>Devices</strong>: register your devices and see their catalog details.</li>
</ul>
<p class="actions"><a class="button" href="/sign-in">Sign in</a> <a class="button secondary" href="/register">Create an account</a></p>`,
  );
}
