import createClient, { type Client, type Middleware } from 'openapi-fetch';
// Generated from the served /openapi.json by the test (openapi-typescript); git-ignored.
import type { paths } from '../generated/openapi.js';

// A third party's program, written only against the generated types: if the document stops
// declaring what a call needs (a path parameter, a header, a body field, a status), tsc rejects
// this file. It imports nothing else of the platform.

export interface JourneyInput {
  baseUrl: string;
  /** auth:register and auth:login. */
  app: { key: string; secret: string };
  /** system:full-access (the account dashboard's kind of key). */
  dashboard: { key: string; secret: string };
  /** write:devices, for the import. */
  importer: { key: string; secret: string };
  /** register:device. */
  firmware: { key: string; secret: string };
  admin: { email: string; password: string };
  /** A fresh account to create. */
  user: { email: string; password: string };
  /** Checks every answer (status declared, body of the declared schema). */
  middleware: Middleware;
}

type Key = { key: string; secret: string };

function clientFor(input: JourneyInput, key: Key, token?: string): Client<paths> {
  const client = createClient<paths>({
    baseUrl: input.baseUrl,
    headers: { 'X-Api-Key': key.key, 'X-Api-Secret': key.secret, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
  });
  client.use(input.middleware);
  return client;
}

function expectStatus(what: string, response: Response, ...statuses: number[]): void {
  if (!statuses.includes(response.status)) throw new Error(`${what} answered ${response.status}, expected ${statuses.join(' or ')}`);
}

function must<T>(what: string, data: T | undefined): T {
  if (data === undefined) throw new Error(`${what}: no body`);
  return data;
}

/** A login's token: the spec's one-step answer (a two-factor account gets a challenge instead). */
function tokenOf(what: string, data: { token: string } | { twoFactorRequired: true } | undefined): string {
  const body = must(what, data);
  if (!('token' in body)) throw new Error(`${what}: a two-factor challenge, not a token`);
  return body.token;
}

/** Calls every operation of the document once or more, as a typed client would; returns nothing, throws on a surprise. */
export async function runJourney(input: JourneyInput): Promise<void> {
  const app = clientFor(input, input.app);
  const { userToken, adminToken } = await signUpJourney(input, app);
  const reader = clientFor(input, input.dashboard);
  const monthlyPlanId = await monthlyPlanOf(reader);
  const brand = `Journey${input.user.email.split('@')[0]!.replace(/[^A-Za-z0-9]/g, '')}`;
  const catalogEntryId = await importJourney(clientFor(input, input.importer, adminToken), reader, brand);
  await deviceJourney(input, userToken, brand, catalogEntryId);
  const dashboard = clientFor(input, input.dashboard, userToken);
  await subscriptionJourney(dashboard, brand, monthlyPlanId);
  await apiKeyJourney(dashboard);
  await auditLogJourney(dashboard);
  await webhookJourney(dashboard);
  await leakReportJourney(app);
  await accountJourney(input, app, dashboard);
}

/** The new account registered (a second time refused with the error shape), then it and the admin signed in. */
async function signUpJourney(input: JourneyInput, app: Client<paths>): Promise<{ userToken: string; adminToken: string }> {
  const registered = await app.POST('/api/Users/Register', {
    body: { email: input.user.email, password: input.user.password, firstName: 'Grace', lastName: 'Hopper' },
  });
  expectStatus('register', registered.response, 201);
  const refused = await app.POST('/api/Users/Register', {
    body: { email: input.user.email, password: input.user.password, firstName: 'Grace', lastName: 'Hopper' },
  });
  expectStatus('register again', refused.response, 409);
  if (refused.error?.error === undefined) throw new Error('a 409 without the error shape');

  const login = await app.POST('/api/Users/Login', { body: { email: input.user.email, password: input.user.password } });
  expectStatus('login', login.response, 200);
  const userToken = tokenOf('login', login.data);
  const adminLogin = await app.POST('/api/Users/Login', { body: { email: input.admin.email, password: input.admin.password } });
  expectStatus('admin login', adminLogin.response, 200);
  return { userToken, adminToken: tokenOf('admin login', adminLogin.data) };
}

/** The monthly plan's id, from the plans listed (its type inferred: the generated document's, as the ids below). */
async function monthlyPlanOf(reader: Client<paths>) {
  const plans = await reader.GET('/api/SubscriptionPlans');
  expectStatus('plans', plans.response, 200);
  const monthly = must('plans', plans.data).items.find((plan) => plan.planType === 1);
  if (!monthly) throw new Error('no monthly plan');
  return monthly.id;
}

/** A catalog entry of the run's own brand imported (a dry run first, then for real); returns its id as the catalog lists it. */
async function importJourney(importer: Client<paths>, reader: Client<paths>, brand: string) {
  const entry = {
    type: 'dac' as const,
    brand,
    model: 'One',
    price: 199.99,
    releaseYear: 2024,
    specs: {
      chip: 'ESS ES9038Q2M',
      maxSampleRateHz: 384000,
      maxBitDepth: 32 as const,
      dsd: 'DSD256' as const,
      inputs: ['usb' as const],
      outputs: ['rca' as const],
    },
  };
  const dryRun = await importer.POST('/api/Dac/import', { params: { query: { dryRun: true } }, body: [entry] });
  expectStatus('import dry run', dryRun.response, 200);
  const imported = await importer.POST('/api/Dac/import', { body: { items: [entry] } });
  expectStatus('import', imported.response, 200);
  if (must('import', imported.data).inserted !== 1) throw new Error('the import inserted nothing');

  const catalog = await reader.GET('/api/Dac', { params: { query: { brand, page: 1, pageSize: 5 } } });
  expectStatus('catalog', catalog.response, 200);
  const catalogEntryId = must('catalog', catalog.data).items[0]?.id;
  if (catalogEntryId === undefined) throw new Error('the imported entry is not listed');
  return catalogEntryId;
}

/** A device registered by firmware (again under a new name: the same device), then listed as the user's one device. */
async function deviceJourney(
  input: JourneyInput,
  userToken: string,
  brand: string,
  catalogEntryId: Awaited<ReturnType<typeof importJourney>>,
): Promise<void> {
  const firmware = clientFor(input, input.firmware, userToken);
  const device = { serialNumber: `SN-${brand}`, name: 'Desk DAC', catalogEntryId, firmwareVersion: '1.0.0' };
  const first = await firmware.POST('/api/Devices/Register', { body: device });
  expectStatus('register device', first.response, 201);
  const repeat = await firmware.POST('/api/Devices/Register', { body: { ...device, name: 'Desk DAC (renamed)' } });
  expectStatus('register device again', repeat.response, 200);
  const devices = await clientFor(input, input.app, userToken).GET('/api/Devices');
  expectStatus('devices', devices.response, 200);
  if (must('devices', devices.data).items.length !== 1) throw new Error('expected one device');
}

/** A subscription to the monthly plan, listed, then set to end at the period's end. */
async function subscriptionJourney(
  dashboard: Client<paths>,
  brand: string,
  planId: Awaited<ReturnType<typeof monthlyPlanOf>>,
): Promise<void> {
  const subscribed = await dashboard.POST('/api/Subscriptions', {
    params: { header: { 'Idempotency-Key': `journey-${brand}` } },
    body: { planId },
  });
  expectStatus('subscribe', subscribed.response, 201);
  const subscriptions = await dashboard.GET('/api/Subscriptions');
  expectStatus('subscriptions', subscriptions.response, 200);
  const subscriptionId = must('subscribe', subscribed.data).id;
  const canceled = await dashboard.DELETE('/api/Subscriptions/{id}', { params: { path: { id: subscriptionId } } });
  expectStatus('cancel', canceled.response, 200);
  if (!must('cancel', canceled.data).cancelAtPeriodEnd) throw new Error('the subscription is not set to end');
}

/** An API key created, listed, changed, rolled, its usage and the account's read, revoked; an unknown key's revocation refused. */
async function apiKeyJourney(dashboard: Client<paths>): Promise<void> {
  const created = await dashboard.POST('/api/ApiKeys', {
    body: { name: 'journey', scopes: 'read:devices auth:login', environment: 'test' },
  });
  expectStatus('create key', created.response, 201);
  const keyId = must('create key', created.data).id;
  const keys = await dashboard.GET('/api/ApiKeys');
  expectStatus('keys', keys.response, 200);
  const changed = await dashboard.PATCH('/api/ApiKeys/{id}', { params: { path: { id: keyId } }, body: { scopes: 'read:devices' } });
  expectStatus('change key', changed.response, 200);
  const rolled = await dashboard.POST('/api/ApiKeys/{id}/roll', { params: { path: { id: keyId } }, body: { graceSeconds: 0 } });
  expectStatus('roll key', rolled.response, 200);
  if (must('roll key', rolled.data).secret === must('create key', created.data).secret) throw new Error('the rolled secret is the old one');
  const usage = await dashboard.GET('/api/ApiKeys/{id}/usage', { params: { path: { id: keyId }, query: { days: 7 } } });
  expectStatus('key usage', usage.response, 200);
  // The answer may be JSON or (format=csv, Accept: text/csv) CSV: the JSON one is an object with `days`.
  const daily = must('key usage', usage.data);
  if (typeof daily === 'string' || !('days' in daily) || daily.days.length !== 7) throw new Error('usage does not list 7 days');
  const mine = await dashboard.GET('/api/Usage');
  expectStatus('usage this period', mine.response, 200);
  const period = must('usage this period', mine.data);
  if (typeof period === 'string' || !period.periods.some((p) => p.period === 'month')) throw new Error('usage has no month');
  const revoked = await dashboard.DELETE('/api/ApiKeys/{id}', { params: { path: { id: keyId } } });
  expectStatus('revoke key', revoked.response, 200);
  if (must('revoke key', revoked.data).revokedAt === null) throw new Error('the key is not revoked');
  const unknown = await dashboard.DELETE('/api/ApiKeys/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } });
  expectStatus('revoke an unknown key', unknown.response, 404);
}

/** The audit trail lists the registration. */
async function auditLogJourney(dashboard: Client<paths>): Promise<void> {
  // Identity's own entries are in the trail at once; those of keys and billing follow through the bus.
  const trail = await dashboard.GET('/api/AuditLog', { params: { query: { pageSize: 50 } } });
  expectStatus('audit log', trail.response, 200);
  if (!must('audit log', trail.data).items.some((item) => item.action === 'account.created'))
    throw new Error('the audit log misses the registration');
}

/**
 * Issue 31's public leak report, as a scanner would send it: signed by a key this deployment does not know
 * (401), or refused outright where no scanner keys are configured (404). Either way nothing is revoked.
 */
async function leakReportJourney(client: Client<paths>): Promise<void> {
  const report = await client.POST('/secret-scanning/github', {
    params: { header: { 'Github-Public-Key-Identifier': 'unknown-scanner-key', 'Github-Public-Key-Signature': 'bm90IGEgc2lnbmF0dXJl' } },
    body: [{ token: 'not-one-of-ours', type: 'acs_api_secret', url: 'https://example.com/leak', source: 'content' }],
  });
  expectStatus('an unknown scanner key', report.response, 401, 404);
}

/** Issue 30's operations: a webhook endpoint registered, listed, changed, its secret rotated, its log read, a replay refused, deleted. */
async function webhookJourney(dashboard: Client<paths>): Promise<void> {
  const created = await dashboard.POST('/api/Webhooks', {
    body: { url: 'http://127.0.0.1:9/journey', events: ['api_key.created', 'quota.threshold'], description: 'journey' },
  });
  expectStatus('register a webhook', created.response, 201);
  const { id, secret } = must('register a webhook', created.data);
  if (!secret.startsWith('whsec_')) throw new Error('the webhook secret is not whsec_');
  const path = { params: { path: { id } } };
  expectStatus('list webhooks', (await dashboard.GET('/api/Webhooks')).response, 200);
  expectStatus('get a webhook', (await dashboard.GET('/api/Webhooks/{id}', path)).response, 200);
  const paused = await dashboard.PATCH('/api/Webhooks/{id}', { ...path, body: { enabled: false } });
  expectStatus('pause a webhook', paused.response, 200);
  if (must('pause a webhook', paused.data).disabledReason !== 'owner') throw new Error('a paused webhook does not say why');
  const rotated = await dashboard.POST('/api/Webhooks/{id}/RotateSecret', { ...path, body: {} });
  expectStatus('rotate a webhook secret', rotated.response, 200);
  const deliveries = await dashboard.GET('/api/Webhooks/{id}/Deliveries', { params: { path: { id }, query: { pageSize: 10 } } });
  expectStatus('webhook deliveries', deliveries.response, 200);
  const replay = await dashboard.POST('/api/Webhooks/{id}/Deliveries/{deliveryId}/Replay', {
    params: { path: { id, deliveryId: '00000000-0000-4000-8000-000000000000' } },
    body: {},
  });
  expectStatus('replay an unknown delivery', replay.response, 404, 409);
  expectStatus('delete a webhook', (await dashboard.DELETE('/api/Webhooks/{id}', path)).response, 200);
}

/** Issue 32's operations: the account, its sessions, e-mail verification, password reset and change, two-factor sign-in. */
async function accountJourney(input: JourneyInput, app: Client<paths>, dashboard: Client<paths>): Promise<void> {
  const me = await dashboard.GET('/api/Users/Me');
  expectStatus('me', me.response, 200);
  if (must('me', me.data).email.toLowerCase() !== input.user.email.toLowerCase()) throw new Error('me is someone else');
  // A second sign-in opens a second session: end it by id, then end all others (none left).
  expectStatus(
    'second login',
    (await app.POST('/api/Users/Login', { body: { email: input.user.email, password: input.user.password } })).response,
    200,
  );
  const sessions = await dashboard.GET('/api/Sessions');
  expectStatus('sessions', sessions.response, 200);
  const other = must('sessions', sessions.data).items.find((session) => !session.current);
  if (!other) throw new Error('the second sign-in has no session');
  expectStatus('end a session', (await dashboard.DELETE('/api/Sessions/{id}', { params: { path: { id: other.id } } })).response, 200);
  expectStatus('end the others', (await dashboard.POST('/api/Sessions/EndOthers', { body: {} })).response, 200);
  expectStatus('resend verification', (await dashboard.POST('/api/Users/VerifyEmail/Resend', { body: {} })).response, 202, 429);
  expectStatus(
    'verify with a wrong token',
    (await app.POST('/api/Users/VerifyEmail', { body: { token: 'not-a-real-token' } })).response,
    400,
  );
  expectStatus('ask for a reset', (await app.POST('/api/Users/PasswordReset', { body: { email: input.user.email } })).response, 202);
  const reset = await app.POST('/api/Users/PasswordReset/Complete', {
    body: { token: 'not-a-real-token', newPassword: 'quartz-lantern-8812-meadow' },
  });
  expectStatus('reset with a wrong token', reset.response, 400);
  expectStatus('enroll two-factor', (await dashboard.POST('/api/Users/TwoFactor/Enroll', { body: {} })).response, 200);
  // 000000 is the right code once in a million: then the confirmation answers 200.
  expectStatus(
    'confirm with a wrong code',
    (await dashboard.POST('/api/Users/TwoFactor/Confirm', { body: { code: '000000' } })).response,
    400,
    200,
  );
  const twoFactor = await app.POST('/api/Users/Login/TwoFactor', { body: { challenge: 'not-a-challenge', code: '000000' } });
  expectStatus('two-factor login with a wrong challenge', twoFactor.response, 401);
  const changed = await dashboard.POST('/api/Users/Password', {
    body: { currentPassword: input.user.password, newPassword: 'quartz-lantern-8812-meadow' },
  });
  expectStatus('change the password', changed.response, 200);
  // Two-factor is off (unless 000000 was right above): new recovery codes and turning it off answer 409 (else 401).
  expectStatus(
    'new recovery codes while two-factor is off',
    (await dashboard.POST('/api/Users/TwoFactor/RecoveryCodes', { body: { code: '000000' } })).response,
    409,
    401,
  );
  expectStatus(
    'turn two-factor off while it is off',
    (await dashboard.POST('/api/Users/TwoFactor/Disable', { body: { password: 'quartz-lantern-8812-meadow', code: '000000' } })).response,
    409,
    401,
  );
  expectStatus(
    'delete the account with a wrong password',
    (await dashboard.DELETE('/api/Users/Me', { body: { password: 'not-the-password-8812' } })).response,
    401,
  );
}
