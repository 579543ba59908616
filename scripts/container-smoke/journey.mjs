// A user's journey through a running gateway, as the smoke run of the deployment files walks it
// (scripts/container-smoke.sh): register, log in, create an API key, read the catalog with it,
// subscribe and see the account become a Subscriber (the event travels billing -> RabbitMQ ->
// identity), register a webhook endpoint and receive the key's api_key.created there, signed (the
// event travels keys -> RabbitMQ -> webhooks -> the receiver), revoke the key and see it refused.
// Each step prints what it saw; the first one that does not hold exits 1.
//   node scripts/container-smoke/journey.mjs <gateway URL>
// with DASHBOARD_API_KEY and DASHBOARD_API_SECRET set: the dashboard's system:full-access key,
// the one application key a fresh deployment has (keys seeds it), registers and logs the user in;
// and WEBHOOK_RECEIVER_HOST: the host's address as the containers reach it, where the receiver
// listens (the smoke's webhooks service allows private URLs for this).
import { randomBytes } from 'node:crypto';
import { signed, startReceiver } from './webhook-receiver.mjs';

const usage = 'usage: DASHBOARD_API_KEY=… DASHBOARD_API_SECRET=… WEBHOOK_RECEIVER_HOST=… node journey.mjs <gateway URL>';
if (process.argv.includes('--help')) {
  console.log(usage);
  process.exit(0);
}
const gateway = process.argv[2];
const app = { key: process.env.DASHBOARD_API_KEY, secret: process.env.DASHBOARD_API_SECRET };
const receiverHost = process.env.WEBHOOK_RECEIVER_HOST;
if (!gateway || !app.key || !app.secret || !receiverHost) {
  console.error(usage);
  process.exit(2);
}

const step = (what) => console.log(`journey: ${what}`);
function fail(what, detail) {
  console.error(`journey: FAILED: ${what}${detail === undefined ? '' : `: ${JSON.stringify(detail)}`}`);
  process.exit(1);
}

async function call(method, path, { auth = app, token, body } = {}) {
  const headers = { 'x-api-key': auth.key, 'x-api-secret': auth.secret };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(gateway + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = text;
  }
  return { status: res.status, body: json };
}

function expectStatus(what, res, ...statuses) {
  if (!statuses.includes(res.status)) fail(`${what}: expected ${statuses.join(' or ')}, got ${res.status}`, res.body);
  return res.body;
}

async function eventually(what, check, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const seen = await check();
    if (seen.ok) return seen;
    if (Date.now() > deadline) fail(`${what} (not within ${ms / 1000} s)`, seen.detail);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const claimsOf = (token) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());

const email = `smoke-${randomBytes(5).toString('hex')}@example.com`;
const password = `violet-anvil-${randomBytes(6).toString('hex')}`;

const ready = await fetch(`${gateway}/readyz`);
if (ready.status !== 200) fail('gateway /readyz', ready.status);
step(`gateway ${gateway} ready`);

const registered = expectStatus(
  'register',
  await call('POST', '/api/Users/Register', { body: { email, password, firstName: 'Ada', lastName: 'Lovelace' } }),
  201,
);
step(`registered ${email} (user ${registered.id})`);

const login = async () => expectStatus('log in', await call('POST', '/api/Users/Login', { body: { email, password } }), 200);
const first = await login();
const before = { role: first.user.role, trial: first.user.isTrialSubscription, planType: claimsOf(first.token).plan_type };
step(`logged in: role ${before.role}, trial ${before.trial}, plan_type ${before.planType}`);

// A webhook endpoint for the key created below (issue 30): the webhooks service consumes keys'
// api_key.created from its own queue and posts it, signed, to the receiver.
const receiver = await startReceiver(receiverHost);
const hook = expectStatus(
  'register a webhook endpoint',
  await call('POST', '/api/Webhooks', { token: first.token, body: { url: receiver.url('/smoke'), events: ['api_key.created'] } }),
  201,
);
step(`registered webhook endpoint ${hook.id} -> ${hook.url}`);

const createKey = () => call('POST', '/api/ApiKeys', { token: first.token, body: { name: 'smoke', scopes: 'read:devices' } });
async function createKeyAndReadCatalog() {
  const key = expectStatus('create a key', await createKey(), 201);
  step(`created key ${key.key} (id ${key.id})`);
  const catalog = expectStatus(
    'read the catalog with the new key',
    await call('GET', '/api/Dac', { auth: { key: key.key, secret: key.secret } }),
    200,
  );
  step(`read the catalog with it: ${Array.isArray(catalog.items) ? `${catalog.items.length} entries on the first page` : 'ok'}`);
  return key;
}

// On a trial (identity's TRIAL_DURATION_SECONDS) a new account already has role 1 and may create
// keys; without one it has role 0 and is refused until it subscribes.
let key;
if (before.role >= 1) key = await createKeyAndReadCatalog();
else {
  expectStatus('a Free account creating a key', await createKey(), 403);
  step('a Free account may not create a key yet: 403');
}

const plans = expectStatus('list the plans', await call('GET', '/api/SubscriptionPlans', { token: first.token }), 200);
const monthly = plans.items.find((p) => p.planType === 1) ?? fail('a Monthly plan (planType 1)', plans);
const subscription = expectStatus(
  'subscribe',
  await call('POST', '/api/Subscriptions', { token: first.token, body: { planId: monthly.id } }),
  201,
);
if (subscription.status !== 'active') fail('the new subscription is active', subscription);
step(`subscribed to plan ${monthly.id} (Monthly): subscription ${subscription.id} ${subscription.status}`);

// billing writes the event to its outbox, the relay publishes it on RabbitMQ, identity consumes it:
// the account becomes a Subscriber (role 1, plan_type 1 in the token).
const after = await eventually('the role change reaches identity', async () => {
  const seen = await login();
  const planType = claimsOf(seen.token).plan_type;
  return { ok: seen.user.role === 1 && planType === 1, detail: { role: seen.user.role, trial: seen.user.isTrialSubscription, planType } };
});
step(`role changed: role ${before.role} -> ${after.detail.role}, plan_type ${before.planType} -> ${after.detail.planType}`);
key ??= await createKeyAndReadCatalog();
const own = { key: key.key, secret: key.secret };

const [delivery] = (
  await eventually('the api_key.created webhook reaches the receiver', async () => {
    const requests = receiver.at('/smoke');
    return { ok: requests.length > 0, detail: requests };
  })
).detail;
let payload;
try {
  payload = signed(hook.secret, delivery);
} catch (err) {
  fail('the webhook verifies with standardwebhooks and the endpoint secret', { error: String(err), headers: delivery.headers });
}
if (payload.type !== 'api_key.created' || payload.data?.keyId !== key.id) fail(`the webhook is api_key.created of key ${key.id}`, payload);
step(`received webhook ${delivery.headers['webhook-id']}: ${payload.type} of key ${payload.data.keyId}, signature verified`);
await receiver.close();

expectStatus('revoke the key', await call('DELETE', `/api/ApiKeys/${key.id}`, { token: first.token }), 200, 204);
await eventually('the revoked key is refused', async () => {
  const res = await call('GET', '/api/Dac', { auth: own });
  return { ok: res.status === 401, detail: res };
});
step('revoked the key: the catalog now answers it 401');

// Account deletion (issue 32): identity publishes user.deleted through its outbox, as its own RabbitMQ user;
// keys, billing and device consume it from their own queues (container-smoke.sh then reads their audit lines
// for this user: the HTTP answers do not show whether the event crossed the broker).
const deleted = expectStatus('delete the account', await call('DELETE', '/api/Users/Me', { token: first.token, body: { password } }), 200);
step(`deleted the account (user ${registered.id}): ${deleted.endedSessions} sessions ended`);
step('passed');
