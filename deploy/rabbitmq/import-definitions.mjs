// Posts the definitions document that `deploy/rabbitmq/users.sh --definitions` prints to a broker's HTTP
// API (the management plugin: POST /api/definitions), as k8s/broker-users.yaml's Job does in our image
// for a managed broker (docs/security.md). The import adds or updates these users and their permissions,
// declares the events exchange and each consumer's queue and bindings where missing, and leaves everything
// else alone; idempotent.
//   sh deploy/rabbitmq/users.sh --definitions | RABBITMQ_MANAGEMENT_URL=https://<admin>:<password>@<host>:15671 node deploy/rabbitmq/import-definitions.mjs
import { text } from 'node:stream/consumers';

const given = process.env.RABBITMQ_MANAGEMENT_URL;
if (!given) {
  console.error('import-definitions.mjs: set RABBITMQ_MANAGEMENT_URL (an administrator on the HTTP API)');
  process.exit(2);
}
const document = JSON.parse(await text(process.stdin));
const url = new URL('/api/definitions', given);
const authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
url.username = '';
url.password = '';
const response = await fetch(url, {
  method: 'POST',
  headers: { authorization, 'content-type': 'application/json' },
  body: JSON.stringify(document),
  signal: AbortSignal.timeout(30_000),
});
if (!response.ok) {
  console.error(`import-definitions: ${url.origin} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  process.exit(1);
}
const queues = (document.queues ?? []).map((q) => q.name).join(', ');
console.log(`import-definitions: users ${document.users.map((u) => u.name).join(', ')} and queues ${queues} imported into ${url.origin}`);
