import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as OTPAuth from 'otpauth';
import QRCode from 'qrcode';
import { PASSWORD, registerUser, signIn, startDashboardSystem, type DashboardSystem } from './harness.js';
import { textOf } from './browser.js';

// Issue 32 item 4 in the dashboard (fetch-based): turn two-factor sign-in on with the shown key, then
// sign in with the password and a code from a third-party TOTP (otpauth), or a recovery code.
let system: DashboardSystem;

beforeAll(async () => {
  system = await startDashboardSystem();
}, 90_000);
afterAll(async () => system?.stop());

describe('two-factor sign-in in the dashboard', () => {
  it('turns on with a first code, shows the recovery codes once, then asks for a code at sign-in', async () => {
    const browser = system.browser();
    const { email } = await registerUser(browser);
    await browser.get('/account/two-factor');
    const enrolled = await browser.post('/account/two-factor', { action: 'enroll' });
    const secret = /<code id="two-factor-secret">([A-Z2-7]+)<\/code>/.exec(enrolled.html)?.[1];
    expect(secret).toBeDefined();
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret!), algorithm: 'SHA1', digits: 6, period: 30 });
    const otpauthUri = /name="otpauthUri" value="([^"]+)"/.exec(enrolled.html)![1]!.replaceAll('&amp;', '&');
    const on = await browser.post('/account/two-factor', { action: 'confirm', secret: secret!, otpauthUri, code: totp.generate() });
    expect(textOf(on.html)).toContain('They are not shown again.');
    const recovery = [...on.html.matchAll(/<li><code>([a-z2-7]{5}-[a-z2-7]{5})<\/code><\/li>/g)].map((m) => m[1]!);
    expect(recovery).toHaveLength(10);

    await browser.post('/sign-out', {});
    const asked = await signIn(browser, email);
    expect(textOf(asked.html)).toContain('Two-factor sign-in');
    const challenge = /name="challenge" value="([A-Za-z0-9_-]+)"/.exec(asked.html)![1]!;
    const wrong = await browser.post('/sign-in/two-factor', { challenge, code: '000000' });
    expect(wrong.status).toBe(401);
    expect(textOf(wrong.html)).toContain('The code is wrong or already used.');
    const done = await browser.post('/sign-in/two-factor', { challenge, code: totp.generate({ timestamp: Date.now() + 30_000 }) });
    expect(done.path).toBe('/');
    expect(textOf(done.html)).toContain(`Signed in as ${email}`);

    await browser.post('/sign-out', {});
    const again = await signIn(browser, email);
    const second = /name="challenge" value="([A-Za-z0-9_-]+)"/.exec(again.html)![1]!;
    const withRecovery = await browser.post('/sign-in/two-factor', { challenge: second, code: recovery[0]!.toUpperCase() });
    expect(withRecovery.path).toBe('/');
  });

  /** Turns two-factor sign-in on for a new account, reading the key from the page as a person would. */
  async function turnedOn() {
    const browser = system.browser();
    const { email } = await registerUser(browser);
    const enrolled = await browser.post('/account/two-factor', { action: 'enroll' });
    const otpauthUri = /name="otpauthUri" value="([^"]+)"/.exec(enrolled.html)![1]!.replaceAll('&amp;', '&');
    const totp = OTPAuth.URI.parse(otpauthUri) as OTPAuth.TOTP;
    const secret = /<code id="two-factor-secret">([A-Z2-7]+)<\/code>/.exec(enrolled.html)![1]!;
    await browser.post('/account/two-factor', { action: 'confirm', secret, otpauthUri, code: totp.generate() });
    return { browser, email, enrolled, otpauthUri, totp };
  }
  const nextCode = (totp: OTPAuth.TOTP) => totp.generate({ timestamp: Date.now() + 30_000 });

  it('the enrollment page shows the otpauth:// URI as an inline SVG QR code, next to the key and the link', async () => {
    const { enrolled, otpauthUri } = await turnedOn();
    const svg = /<figure class="qr">(<svg [\s\S]*?<\/svg>)<\/figure>/.exec(enrolled.html)?.[1];
    expect(svg).toBeDefined();
    expect(svg).toContain('role="img" aria-label="QR code of the key for your authenticator app"');
    expect(svg).not.toMatch(/<script|style=|href=/);
    // The modules drawn are those of the page's own URI (the same encoder, the same settings).
    const expected = await QRCode.toString(otpauthUri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    expect(svg!.replace(/ role="img"[^>]*?height="220"/, '')).toBe(expected.trim());
    expect(enrolled.html).toContain('id="two-factor-secret"');
  });

  it('with it on, the page gives new recovery codes for a code, and turns it off with the password and a code', async () => {
    const first = await turnedOn();
    const page = await first.browser.get('/account/two-factor');
    expect(textOf(page.html)).toContain('Two-factor sign-in is on');
    const wrong = await first.browser.post('/account/two-factor', { action: 'regenerate', code: '000000' });
    expect(wrong.status).toBe(401);
    const renewed = await first.browser.post('/account/two-factor', { action: 'regenerate', code: nextCode(first.totp) });
    expect(textOf(renewed.html)).toContain('New recovery codes');
    expect([...renewed.html.matchAll(/<li><code>([a-z2-7]{5}-[a-z2-7]{5})<\/code><\/li>/g)]).toHaveLength(10);

    const second = await turnedOn();
    const refused = await second.browser.post('/account/two-factor', {
      action: 'disable',
      password: 'not-the-password-at-all',
      disableCode: nextCode(second.totp),
    });
    expect(refused.status).toBe(401);
    expect(textOf(refused.html)).toContain('Two-factor sign-in stays on.');
    const off = await second.browser.post('/account/two-factor', {
      action: 'disable',
      password: PASSWORD,
      disableCode: nextCode(second.totp),
    });
    expect(off.path).toBe('/account/two-factor');
    expect(textOf(off.html)).toContain('Two-factor sign-in is off.');
    await second.browser.post('/sign-out', {});
    expect((await signIn(second.browser, second.email)).path).toBe('/');
  });
});
