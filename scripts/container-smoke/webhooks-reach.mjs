// What the webhooks container can reach on the compose networks (docker-compose.yml, `networks:`): it
// posts to addresses users choose, so it is on a network of its own, shared only with what it connects
// to. From inside its running container, every other service's name is looked up on the networks' DNS:
// those that share a network with it in the compose files must resolve, the rest must not. Exits 1 on any difference.
// Then, for information, whether it can open Redis' port at Redis' address on the other network: Docker
// isolates bridge networks from each other; podman 4.3 with netavark 1.4 (this machine's) by name only.
//   node scripts/container-smoke/webhooks-reach.mjs <project> <compose file>...
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mergedServices, networksOf } from './compose-files.mjs';

const run = promisify(execFile);
if (process.argv.includes('--help') || process.argv.length < 4) {
  console.log('usage: node scripts/container-smoke/webhooks-reach.mjs <project> <compose file>...');
  process.exit(process.argv.includes('--help') ? 0 : 2);
}
const [, , project, ...files] = process.argv;

// Runs inside the container (node of our image): each name's address, or the lookup's error code.
// Asked of the networks' DNS servers (aardvark-dns, the container's resolv.conf) and not through
// /etc/hosts, where compose.override.yml's extra_hosts also name postgres and rabbitmq: this is about
// the compose networks. A server that does not answer (aardvark-dns reloads as containers start and
// stop: ETIMEOUT, ECONNREFUSED, ESERVFAIL) is asked again, for up to 10 s.
const LOOKUP = `
const resolver = new (require('node:dns').promises.Resolver)({ timeout: 1000, tries: 1 });
const pause = () => new Promise((r) => setTimeout(r, 200));
const SETTLED = new Set(['ENOTFOUND', 'ENODATA']);
async function lookup(name, until = Date.now() + 10000) {
  try { return (await resolver.resolve4(name))[0]; }
  catch (e) { if (!SETTLED.has(e.code) && Date.now() < until) { await pause(); return lookup(name, until); } return e.code; }
}
Promise.all(process.argv.slice(1).map((name) => lookup(name))).then((r) =>
  console.log(JSON.stringify(Object.fromEntries(process.argv.slice(1).map((n, i) => [n, r[i]])))));`;

// Runs inside the container: whether a TCP connection to host:port opens within 2 s.
const CONNECT = `
const socket = require('node:net').connect(Number(process.argv[2]), process.argv[1]);
socket.setTimeout(2000, () => { console.log('timed out'); socket.destroy(); });
socket.on('connect', () => { console.log('connected'); socket.destroy(); });
socket.on('error', (e) => console.log(e.code));`;

const networks = new Map(Object.entries(mergedServices(files, ['networks'])).map(([name, service]) => [name, networksOf(service)]));
const own = new Set(networks.get('webhooks'));
const container = `${project}_webhooks_1`;
const others = [...networks.keys()].filter((name) => name !== 'webhooks');
const { stdout } = await run('podman', ['exec', container, 'node', '-e', LOOKUP, ...others]);
const found = JSON.parse(stdout);
const reachable = others.filter((name) => networks.get(name).some((network) => own.has(network)));
const wrong = [];
for (const name of others) {
  const shared = reachable.includes(name);
  const resolved = /^\d+\.\d+\.\d+\.\d+$|:/.test(found[name]);
  // Only "no such name" says a name does not resolve; anything else leaves it unknown, which fails too.
  if (!resolved && found[name] !== 'ENOTFOUND')
    wrong.push(`${name}: the lookup failed (${found[name]}), so whether it resolves is not known`);
  else if (shared !== resolved)
    wrong.push(
      `${name} ${resolved ? `resolves (${found[name]})` : `does not resolve (${found[name]})`} but ${shared ? 'shares' : 'shares no'} network with webhooks`,
    );
}
if (wrong.length > 0) {
  console.error(`webhooks-reach: from the webhooks container:\n  ${wrong.join('\n  ')}`);
  process.exit(1);
}
console.log(
  `webhooks-reach: from the webhooks container only ${reachable.join(', ')} resolve; ${others.filter((n) => !reachable.includes(n)).join(', ')} do not`,
);

if (networks.has('redis') && !reachable.includes('redis')) {
  const { stdout: address } = await run('podman', [
    'inspect',
    '--format',
    '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}',
    `${project}_redis_1`,
  ]);
  const ip = address.trim().split(/\s+/)[0];
  const { stdout: outcome } = await run('podman', ['exec', container, 'node', '-e', CONNECT, ip, '6379']);
  console.log(
    `webhooks-reach: Redis' address on its own network (${ip}:6379) from the webhooks container: ${outcome.trim()} (Docker isolates the networks: never connected; podman 4.3 with netavark 1.4 by name only)`,
  );
}
