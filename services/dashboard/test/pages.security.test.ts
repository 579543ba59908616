import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Browser, csrfTokenOf, textOf, withoutOwnScript } from './browser.js';
import { PASSWORD, createdCredentials, keyIdOf, registerUser, signIn, startDashboardSystem, type DashboardSystem } from './harness.js';

// What a reviewer checks: sessions, CSRF and origin checks, headers, escaping, ownership, throttling.
let system: DashboardSystem;

beforeAll(async () => {
  system = await startDashboardSystem({ LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS: '3' });
}, 90_000);
afterAll(async () => system?.stop());

const sessionCookieLine = (lines: string[]): string | undefined => lines.find((line) => line.startsWith('acs_session='));

/** A signed-in browser with one key (read:devices), and that key's credentials. */
async function userWithKey(name = 'victim key') {
  const browser = system.browser();
  await registerUser(browser);
  await browser.get('/keys');
  const credentials = createdCredentials(await browser.post('/keys', { name, scopes: ['read:devices'] }));
  return { browser, credentials, id: keyIdOf(browser.lastPage!, credentials.key) };
}

const keyWorks = async (credentials: { key: string; secret: string }) =>
  (await system.sut.call('GET', '/api/Dac?pageSize=1', credentials)).status === 200;

describe('no session, or a session that is not ours', () => {
  it.each(['/keys', '/subscriptions', '/devices'])(
    'GET %s without a session redirects to sign-in, and back there afterwards',
    async (path) => {
      const browser = system.browser();
      const { email } = await registerUser(browser);
      await browser.post('/sign-out', {});
      const page = await browser.get(path);
      expect(page.redirects).toEqual([`/sign-in?next=${encodeURIComponent(path)}`]);
      expect(page.status).toBe(200);
      expect(textOf(page.html)).toContain('Please sign in to see that page.');
      expect(page.html).toContain(`name="next" value="${path}"`);
      const back = await browser.post('/sign-in', { email, password: PASSWORD, next: path });
      expect(back.redirects).toEqual([path]);
    },
  );

  it('after sign-in only a path of this site is followed: anything else goes to the overview', async () => {
    const browser = system.browser();
    const { email } = await registerUser(browser);
    for (const next of ['https://evil.example/', '//evil.example/keys', '/\\evil.example', '/keys?x=1', '/../keys', 'keys', '/sign-out']) {
      await browser.post('/sign-out', {});
      await browser.get(`/sign-in?next=${encodeURIComponent(next)}`);
      expect(browser.lastPage!.html).not.toContain('name="next"');
      const page = await browser.post('/sign-in', { email, password: PASSWORD, next });
      expect(page.redirects).toEqual(['/']);
    }
  });

  it('GET / without a session is the landing page: what this is, and the ways in', async () => {
    const page = await system.browser().get('/');
    expect(page.status).toBe(200);
    expect(page.redirects).toEqual([]);
    expect(textOf(page.html)).toContain('manage their account on the audio platform');
    expect(page.html).toContain('href="/register"');
  });

  it('a tampered session cookie is treated as signed out (and replaced)', async () => {
    const browser = system.browser();
    await registerUser(browser);
    const sealed = browser.jar.get('acs_session')!;
    const i = Math.floor(sealed.length / 2);
    browser.jar.set('acs_session', sealed.slice(0, i) + (sealed[i] === 'A' ? 'B' : 'A') + sealed.slice(i + 1));
    const page = await browser.get('/keys');
    expect(page.redirects).toEqual(['/sign-in?next=%2Fkeys']);
    expect(browser.jar.get('acs_session')).not.toBe(sealed);
  });

  it('the session cookie is HttpOnly, SameSite=Strict, Path=/, not Secure on plain HTTP, expires with the token, and hides the JWT', async () => {
    const browser = system.browser();
    const { email, page } = await registerUser(browser);
    const line = sessionCookieLine(page.setCookies)!;
    const attributes = line.split('; ').slice(1);
    expect(attributes).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Strict']));
    expect(attributes).not.toContain('Secure'); // the launcher serves http://127.0.0.1
    const maxAge = Number(/Max-Age=(\d+)/.exec(line)![1]);
    expect(maxAge).toBeGreaterThan(3500); // JWT_TTL_SECONDS defaults to 3600
    expect(maxAge).toBeLessThanOrEqual(3600);
    const value = line.split(';')[0]!.split('=')[1]!;
    expect(value).not.toContain('eyJ'); // no readable JWT header or payload
    expect(Buffer.from(value, 'base64url').toString('latin1')).not.toContain(email);
  });
});

describe('forms must come from our own pages', () => {
  it('POST without a CSRF token gives 403 and creates nothing', async () => {
    const { browser } = await userWithKey();
    const before = (await browser.get('/keys')).html.split('<tr data-key-id=').length;
    const refused = await browser.post('/keys', { name: 'forged', scopes: ['read:devices'] }, { csrf: false });
    expect(refused.status).toBe(403);
    expect(textOf(refused.html)).toContain('This form has expired or did not come from this site. Nothing was changed');
    const after = await browser.get('/keys');
    expect(after.html.split('<tr data-key-id=').length).toBe(before);
    expect(after.html).not.toContain('forged');
  });

  it('a CSRF token of another session (or from before sign-in) is refused', async () => {
    const victim = await userWithKey();
    const attacker = system.browser();
    await registerUser(attacker);
    const attackerToken = csrfTokenOf((await attacker.get('/keys')).html)!;
    const refused = await victim.browser.post(`/keys/${victim.id}/revoke`, {}, { csrf: attackerToken });
    expect(refused.status).toBe(403);
    expect(await keyWorks(victim.credentials)).toBe(true);

    const fresh = system.browser();
    const beforeSignIn = csrfTokenOf((await fresh.get('/sign-in')).html)!;
    const { email } = await registerUser(system.browser());
    await fresh.post('/sign-in', { email, password: PASSWORD });
    const stale = await fresh.post('/sign-out', {}, { csrf: beforeSignIn });
    expect(stale.status).toBe(403); // the session id, and so every token, changed at sign-in
  });

  it('a foreign Origin or Sec-Fetch-Site: cross-site is refused with 403 even with a valid token; nothing changes', async () => {
    const { browser, credentials, id } = await userWithKey();
    await browser.get('/keys');
    const foreign = await browser.post(`/keys/${id}/revoke`, {}, { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(textOf(foreign.html)).toContain('This form was sent from another site, so it was refused. Nothing was changed.');
    await browser.get('/keys');
    expect((await browser.post(`/keys/${id}/revoke`, {}, { headers: { origin: 'null' } })).status).toBe(403);
    await browser.get('/keys');
    expect((await browser.post(`/keys/${id}/revoke`, {}, { headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    expect(await keyWorks(credentials)).toBe(true);

    await browser.get('/keys');
    const sameOrigin = await browser.post(`/keys/${id}/revoke`, {}, { headers: { origin: system.url, 'sec-fetch-site': 'same-origin' } });
    expect(sameOrigin.redirects).toEqual(['/keys']);
    expect(await keyWorks(credentials)).toBe(false);
  });

  it('refuses bodies that are not forms (415) or too large (413)', async () => {
    const browser = system.browser();
    await registerUser(browser);
    const json = await browser.send('POST', '/keys', { body: '{"name":"x"}', headers: { 'content-type': 'application/json' } });
    expect(json.status).toBe(415);
    const huge = await browser.send('POST', '/keys', {
      body: `name=${'x'.repeat(20_000)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(huge.status).toBe(413);
  });
});

describe('users act on their own things only (the gateway decides; the dashboard passes it through)', () => {
  it("revoking or changing another user's key id gives a not-found message and the key keeps working", async () => {
    const victim = await userWithKey();
    const intruder = system.browser();
    await registerUser(intruder);
    await intruder.get('/keys');
    const revoke = await intruder.post(`/keys/${victim.id}/revoke`, {});
    expect(revoke.status).toBe(404);
    expect(textOf(revoke.html)).toContain('That API key was not found in your account.');
    const change = await intruder.post(`/keys/${victim.id}/edit`, { name: 'mine now', scopes: ['auth:login'] });
    expect(change.status).toBe(404);
    expect(await keyWorks(victim.credentials)).toBe(true);
    expect((await intruder.get('/keys')).html).not.toContain(victim.credentials.key);
  });

  it('devices of one user never show for another', async () => {
    const owner = system.browser();
    await registerUser(owner);
    await owner.get('/devices');
    await owner.post('/devices', { serialNumber: `OWN-${Date.now()}`, name: 'Private amp', catalogEntryId: '', firmwareVersion: '' });
    const other = system.browser();
    await registerUser(other);
    expect(textOf((await other.get('/devices')).html)).not.toContain('Private amp');
  });
});

describe('sign-in throttling comes from identity', () => {
  it('after 3 failures the 4th attempt is a 429 with Retry-After, shown as a sentence', async () => {
    const browser = system.browser();
    const { email } = await registerUser(browser);
    await browser.post('/sign-out', {});
    for (let i = 0; i < 3; i += 1) expect((await signIn(browser, email, `wrong-password-${i}`)).status).toBe(401);
    const throttled = await signIn(browser, email, 'wrong-password-again');
    expect(throttled.status).toBe(429);
    const retryAfter = Number(throttled.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(textOf(throttled.html)).toContain(`Too many attempts from your network, try again in ${Math.ceil(retryAfter / 60)} minute`);
    const banner = /<p class="error" role="alert" id="form-error">([^<]*)<\/p>/.exec(throttled.html)?.[1];
    expect(banner).toBe(
      `Too many attempts from your network, try again in ${Math.ceil(retryAfter / 60)} minute${Math.ceil(retryAfter / 60) === 1 ? '' : 's'}.`,
    );
    expect(throttled.html).not.toContain('aria-invalid'); // no field singled out: nothing about which limit, or whether the account exists
  });
});

describe('every response', () => {
  const paths = ['/sign-in', '/', '/no-such-page', '/assets/dashboard.css', '/healthz'];

  it.each(paths)('%s carries the security headers', async (path) => {
    const res = await fetch(system.url + path, { redirect: 'manual' });
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*' 'sha256-[A-Za-z0-9+/]+=*'(;|$)/); // two scripts, each by its hash
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    await res.arrayBuffer();
  });

  it('pages are never cached; the stylesheet may be', async () => {
    const browser = system.browser();
    await registerUser(browser);
    expect((await browser.get('/keys')).headers.get('cache-control')).toBe('no-store');
    const css = await fetch(`${system.url}/assets/dashboard.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('cache-control')).toMatch(/max-age/);
    expect(await css.text()).toContain('.secret');
  });

  it('unknown pages are a 404 page, other methods a 405 with Allow; neither shows internals', async () => {
    const missing = await system.browser().get('/no-such-page');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(textOf(missing.html)).toContain('Page not found There is no page at this address.');
    const put = await fetch(`${system.url}/keys`, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(await put.text()).not.toMatch(/Error:|at \//);
  });

  it('/healthz and /readyz answer (readyz asks the gateway)', async () => {
    expect((await fetch(`${system.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${system.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true, checks: { gateway: 'ok' } });
  });
});

describe('values from users are escaped', () => {
  const SCRIPT = '<script>alert("x")</script>';

  it('a device and a key named like a script tag are shown as text', async () => {
    const browser = system.browser();
    await registerUser(browser);
    await browser.get('/devices');
    const devices = await browser.post('/devices', {
      serialNumber: `ESC-${Date.now()}`,
      name: SCRIPT,
      catalogEntryId: '',
      firmwareVersion: '',
    });
    expect(withoutOwnScript(devices.html)).not.toContain('<script');
    expect(devices.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(textOf(devices.html)).toContain(SCRIPT);

    await browser.get('/keys');
    const keys = await browser.post('/keys', { name: `"><img src=x onerror=alert(1)>${SCRIPT}`, scopes: ['read:devices'] });
    expect(withoutOwnScript(keys.html)).not.toContain('<script');
    expect(keys.html).not.toContain('<img');
    expect(textOf(keys.html)).toContain(`"><img src=x onerror=alert(1)>${SCRIPT}`);
  });

  it('values sent back into a form after an error are escaped inside attributes', async () => {
    const browser = new Browser(system.url);
    await browser.get('/register');
    const page = await browser.post('/register', {
      email: `"><script>x</script>@example.com`,
      firstName: '" autofocus onfocus="alert(1)',
      lastName: 'L',
      password: 'x',
    });
    expect(page.status).toBe(400);
    expect(withoutOwnScript(page.html)).not.toContain('<script');
    expect(page.html).toContain('value="&quot; autofocus onfocus=&quot;alert(1)"');
  });
});

describe('a link from another site (no cookies: SameSite=Strict)', () => {
  /** A GET with the exact request target given (fetch would normalize `..` and `//`). */
  function rawGet(target: string): Promise<{ status: number; setCookie: string[]; body: string }> {
    const { hostname, port } = new URL(system.url);
    return new Promise((resolve, reject) => {
      const req = request(
        { hostname, port, path: target, headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' } },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, setCookie: res.headers['set-cookie'] ?? [], body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  it.each([
    ['/keys?tab=1', '/keys?tab=1'],
    ['/x/..//evil.example/keys', '/evil.example/keys'],
    ['//evil.example/keys', '/keys'],
  ])('%s gets a page that reloads %s from here, never another host, and sets no cookie', async (target, expected) => {
    const res = await rawGet(target);
    expect(res.status).toBe(200);
    expect(res.setCookie).toEqual([]);
    expect(/<meta http-equiv="refresh" content="0;url=([^"]*)">/.exec(res.body)?.[1]).toBe(expected);
    expect(res.body).toContain(`<a href="${expected}">`);
  });
});
