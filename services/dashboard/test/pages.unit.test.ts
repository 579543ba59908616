import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { dashboardConfigSchema } from '../src/config.js';
import { isCrossSitePost } from '../src/http/same-origin.js';
import { escapeHtml, html } from '../src/pages/html.js';
import { parseConfig, ConfigError } from '@acs/config';
import { SPEC_ERRORS } from '@acs/errors';
import { GatewayError } from '../src/gateway-client/gateway-error.js';
import { SUBSCRIPTION_NEEDED, describeGatewayError, pageStatusFor } from '../src/gateway-client/user-messages.js';
import type { ApiKeyView } from '@acs/contracts';
import { exampleCallFor } from '../src/account/example-call.js';
import { keysPage } from '../src/pages/keys/key-list-page.js';
import { createdPanel } from '../src/pages/keys/secret-panels.js';
import { copyScriptElement } from '../src/pages/copy-script.js';
import { devicesPage } from '../src/pages/devices-page.js';
import { pickerScriptElement } from '../src/pages/picker-script.js';
import { CONTENT_SECURITY_POLICY } from '../src/http/security-headers.js';
import { safeNextPath } from '../src/routes/next-path.js';
import { operationTable, quotaBox } from '../src/pages/quota-usage.js';

describe('the html template tag', () => {
  it('escapes every interpolated string, in text and in attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
    const name = '"><script>alert(1)</script>';
    expect(html`<input value="${name}"><p>${name}</p>`.value).toBe(
      '<input value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"><p>&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;</p>',
    );
  });

  it('nests templates without escaping twice; lists join; false, null and undefined render nothing', () => {
    const items = ['<a>', '<b>'].map((x) => html`<li>${x}</li>`);
    expect(html`<ul>${items}</ul>${false}${null}${undefined}${0}`.value).toBe('<ul><li>&lt;a&gt;</li><li>&lt;b&gt;</li></ul>0');
  });
});

describe('cross-site form posts', () => {
  const host = 'dash.example:8086';
  it.each([
    [{ host }, false],
    [{ host, origin: 'http://dash.example:8086' }, false],
    [{ host, origin: 'https://dash.example:8086', 'sec-fetch-site': 'same-origin' }, false],
    [{ host, 'sec-fetch-site': 'none' }, false],
    [{ host, origin: 'https://evil.example' }, true],
    [{ host, origin: 'http://dash.example:9999' }, true],
    [{ host, origin: 'null' }, true],
    // Chromium under no-referrer: Origin null on a same-origin form post; Sec-Fetch-Site decides.
    [{ host, origin: 'null', 'sec-fetch-site': 'same-origin' }, false],
    [{ host, origin: 'null', 'sec-fetch-site': 'cross-site' }, true],
    [{ host, origin: 'http://dash.example:8086', 'sec-fetch-site': 'cross-site' }, true],
    [{ host, referer: 'http://dash.example:8086/keys' }, false],
    [{ host, referer: 'https://evil.example/dash.example:8086' }, true],
    [{ host, origin: 'not a url' }, true],
    [{ host, 'sec-fetch-site': 'cross-site' }, true],
    [{ host, 'sec-fetch-site': 'same-site', origin: 'http://dash.example:8086' }, true],
  ])('%j -> cross-site: %s', (headers, expected) => {
    expect(isCrossSitePost(headers)).toBe(expected);
  });
});

describe('configuration', () => {
  const valid = {
    GATEWAY_URL: 'http://gateway:8080',
    DASHBOARD_API_KEY: 'acs_live_abcdefghijklmnop1234',
    DASHBOARD_API_SECRET: 's'.repeat(43),
    SESSION_SECRET: 'k'.repeat(32),
  };

  it('defaults: port 8086, Secure cookies', () => {
    expect(parseConfig('dashboard', dashboardConfigSchema, valid)).toMatchObject({ PORT: 8086, COOKIE_SECURE: true, LOG_LEVEL: 'info' });
    expect(parseConfig('dashboard', dashboardConfigSchema, { ...valid, COOKIE_SECURE: 'false' }).COOKIE_SECURE).toBe(false);
  });

  it('names each bad variable and what was expected, never its value', () => {
    const bad = {
      ...valid,
      SESSION_SECRET: 'too-short-secret',
      DASHBOARD_API_KEY: 'not-a-key',
      GATEWAY_URL: 'ftp://x',
      COOKIE_SECURE: 'perhaps',
    };
    let error: unknown;
    try {
      parseConfig('dashboard', dashboardConfigSchema, bad);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toContain('SESSION_SECRET: expected at least 32 characters');
    expect(message).toContain('DASHBOARD_API_KEY: expected an API key');
    expect(message).toContain('GATEWAY_URL: expected a URL starting with http:// or https://');
    expect(message).toContain('COOKIE_SECURE: expected true or false');
    expect(message).not.toContain('too-short-secret');
    const missing = () => parseConfig('dashboard', dashboardConfigSchema, {});
    expect(missing).toThrow(/DASHBOARD_API_SECRET: required/);
  });
});

describe('gateway refusals as sentences', () => {
  const error = (
    status: number,
    body: Partial<{ error: string; message: string; details: { path: string; message: string }[] }> | null,
    retryAfter: number | null = null,
  ) => new GatewayError(status, body ? { error: 'E', message: 'M', ...body } : null, retryAfter);

  it('429 names the wait; 403 for the role names the subscription; 404 says whose; 400 lists the fields', () => {
    expect(describeGatewayError(error(429, {}, 840), 'r1')).toBe('Too many attempts from your network, try again in 14 minutes.');
    expect(describeGatewayError(error(429, {}, 841), 'r1')).toBe('Too many attempts from your network, try again in 15 minutes.');
    expect(describeGatewayError(error(429, {}, 30), 'r1')).toBe('Too many attempts from your network, try again in 1 minute.');
    expect(describeGatewayError(error(429, { message: 'Too many failed sign-in attempts for this account' }, 60), 'r1')).not.toContain(
      'account',
    );
    expect(describeGatewayError(error(403, SPEC_ERRORS.insufficientUser), 'r1', { insufficientRole: SUBSCRIPTION_NEEDED })).toBe(
      SUBSCRIPTION_NEEDED,
    );
    expect(describeGatewayError(error(404, { message: 'No such API key' }), 'r1', { notFound: 'Not in your account.' })).toBe(
      'Not in your account.',
    );
    expect(
      describeGatewayError(
        error(400, {
          details: [
            { path: 'body.password', message: 'too short' },
            { path: 'body.firstName', message: 'required' },
          ],
        }),
        'r1',
      ),
    ).toBe('Please check: Password: too short; First name: required.');
  });

  it("the dashboard's own key refused, or the gateway down: a 503 with a reference, no internals", () => {
    const refused = error(401, SPEC_ERRORS.missingApiKey);
    expect(pageStatusFor(refused)).toBe(503);
    expect(describeGatewayError(refused, 'req-7', { unauthorized: 'wrong password' })).toContain('reference req-7');
    expect(pageStatusFor(error(503, null))).toBe(503);
    expect(pageStatusFor(error(500, { message: 'db exploded at line 3' }))).toBe(503);
    expect(describeGatewayError(error(500, { message: 'db exploded at line 3' }), 'req-8')).not.toContain('exploded');
  });
});

/** The curl block's text as the browser shows it (entities decoded); null when there is none. */
function textOfCurl(page: string): string | null {
  const block = /<code id="created-curl">([^<]*)<\/code>/.exec(page)?.[1];
  return block === undefined ? null : block.replaceAll('&#39;', "'").replaceAll('&quot;', '"');
}

describe('the keys page', () => {
  const chrome = { csrfToken: 't', signedIn: true };
  const created = {
    name: 'n',
    key: 'acs_live_abcdefghijklmnopqrst',
    secret: 'the-secret-value',
    scopes: 'read:devices',
    environment: 'live',
  };
  const key = (overrides: Partial<ApiKeyView>): ApiKeyView => ({
    id: 'k1',
    name: 'old',
    key: 'acs_live_x',
    scopes: 'read:devices',
    environment: 'live',
    createdAt: '2025-01-01T00:00:00Z',
    lastUsedAt: null,
    revokedAt: null,
    revokedReason: null,
    exposedAt: null,
    rateLimits: null,
    expiresAt: null,
    graceEndsAt: null,
    ipAllowList: null,
    ...overrides,
  });
  const listed = (keys: ApiKeyView[]) =>
    keysPage(chrome, { listing: { kind: 'keys', keys }, created: null, publicGatewayUrl: 'http://gw' }).value;

  it('shows a just-created secret even when the listing cannot be had', () => {
    const page = keysPage(chrome, { listing: { kind: 'unavailable', message: 'try later' }, created, publicGatewayUrl: 'http://gw' }).value;
    expect(page).toContain('the-secret-value');
    expect(page).toContain('try later');
    expect(page).not.toContain('href="/keys/new"');
  });

  it('lists active keys first, each name linking to its page; revoked keys folded under their own heading', () => {
    const page = listed([key({ id: 'k1', name: 'old', revokedAt: '2025-02-01T00:00:00Z' }), key({ id: 'k2', name: 'new' })]);
    expect(page).toContain('Active keys (1)');
    expect(page).toContain('<a href="/keys/k2">new</a>');
    expect(page).toContain('href="/keys/new">Create key</a>');
    const folded = page.slice(page.indexOf('<details class="revoked-keys">'));
    expect(folded).toContain('<summary><h2>Revoked keys (1)</h2></summary>');
    expect(folded).toContain('revoked 2025-02-01 00:00 UTC');
    expect(page.indexOf('Active keys')).toBeLessThan(page.indexOf('Revoked keys'));
    expect(page).not.toContain('<form method="post" action="/keys/'); // no form on the list
  });

  it('the curl line with a new key calls an endpoint its scopes open, or says there is none', () => {
    const curl = (scopes: string) => textOfCurl(createdPanel({ ...created, scopes }, 'http://gw/').value);
    expect(curl('read:devices')).toContain("'http://gw/api/Dac?pageSize=5'");
    expect(curl('write:devices')).toContain('/api/Dac');
    expect(curl('auth:login')).toContain("'http://gw/api/Users/Login'");
    expect(curl('auth:login')).toContain('-d');
    expect(curl('register:device')).toContain('Authorization: Bearer');
    expect(curl('auth:register read:devices')).toContain('/api/Dac'); // a read comes before creating accounts
    expect(curl('')).toBeNull();
    expect(createdPanel({ ...created, scopes: '' }, 'http://gw').value).toContain('no scope yet');
    expect(exampleCallFor('auth:register')?.path).toBe('/api/Users/Register');
  });
});

describe('where to go after signing in', () => {
  it.each([
    ['/keys', '/keys'],
    ['/keys/abc-123/revoke', '/keys/abc-123/revoke'],
    ['/', '/'],
    ['https://evil.example/', null],
    ['//evil.example', null],
    ['/\\evil.example', null],
    ['/keys?x=1', null],
    ['/keys/../sign-out', null],
    ['/sign-in', null],
    ['keys', null],
    ['', null],
    [null, null],
  ])('%j -> %j', (candidate, expected) => {
    expect(safeNextPath(candidate)).toBe(expected);
  });
});

describe('the copy script', () => {
  it('is allowed by the CSP by the hash of exactly the text the pages carry', () => {
    const element = copyScriptElement().value;
    const body = element.slice('<script>'.length, -'</script>'.length);
    expect(CONTENT_SECURITY_POLICY).toContain(`script-src 'sha256-${createHash('sha256').update(body).digest('base64')}'`);
    expect(
      keysPage({ csrfToken: 't', signedIn: true }, { listing: { kind: 'keys', keys: [] }, created: null, publicGatewayUrl: '' }).value,
    ).toContain(element);
  });

  it("the catalog picker's script too, on the devices page only", () => {
    const element = pickerScriptElement().value;
    const body = element.slice('<script>'.length, -'</script>'.length);
    expect(CONTENT_SECURITY_POLICY).toContain(`'sha256-${createHash('sha256').update(body).digest('base64')}'`);
    const chrome = { csrfToken: 't', signedIn: true };
    expect(devicesPage(chrome, { devices: [], catalogUnavailable: false, q: '', results: { kind: 'idle' } }).value).toContain(element);
    expect(keysPage(chrome, { listing: { kind: 'keys', keys: [] }, created: null, publicGatewayUrl: '' }).value).not.toContain(element);
  });
});

describe('quota and usage per operation (issue 29)', () => {
  it('shows used / left per period, a spent quota as such, and a period without cap', () => {
    const text = quotaBox({
      plan: 'monthly',
      periods: [
        { period: 'month', periodStart: '2026-11', resetsAt: '2026-12-01T00:00:00.000Z', used: 1234, quota: 1_000_000, left: 998_766 },
        { period: 'day', periodStart: '2026-11-26', resetsAt: '2026-11-27T00:00:00.000Z', used: 500, quota: 500, left: 0 },
      ],
      keys: [],
    }).value;
    expect(text).toContain('This month: <strong>1,234</strong> used / <strong>998,766</strong> left of 1,000,000');
    expect(text).toContain('<p class="no">Today: <strong>500</strong> used / <strong>0</strong> left of 500</p>');
    expect(text).toContain('under the monthly plan');
    const uncapped = quotaBox({
      plan: null,
      periods: [{ period: 'month', periodStart: '2026-11', resetsAt: 'x', used: 3, quota: null, left: null }],
      keys: [],
    });
    expect(uncapped.value).toContain('This month: <strong>3</strong> requests, no cap.');
    expect(quotaBox(null).value).toContain('cannot be read right now');
  });

  it("lists a key's operations with their status classes, escaped", () => {
    const zero = { '2xx': 0, '3xx': 0, '4xx': 0, '429': 0, '5xx': 0 };
    const table = operationTable({
      from: 'a',
      to: 'b',
      operations: [{ operationId: '<listCatalog>', requests: 1500, byStatus: { ...zero, '2xx': 1499, '429': 1 } }],
      hours: [],
    }).value;
    expect(table).toContain(
      '<td data-label="Operation"><code>&lt;listCatalog&gt;</code></td><td data-label="Requests">1,500</td><td data-label="2xx">1,499</td>',
    );
    expect(operationTable({ from: 'a', to: 'b', operations: [], hours: [] }).value).toContain('No requests in the last 7 days.');
  });
});
