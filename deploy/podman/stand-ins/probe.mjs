// Stand-ins for the postgres, redis and rabbitmq containers of docker-compose.yml, on a machine
// where those images cannot be pulled but the servers run on the host (compose.override.yml).
// A stand-in is what its service name resolves to on the compose network: it passes connections
// on its server's port to the host (STAND_IN_UPSTREAM, the host's address on that network, where
// scripts/container-smoke/forward.mjs listens). The compose file's own health checks
// (pg_isready, redis-cli ping, rabbitmq-diagnostics ping) run the shims next to this file, which
// ask the real server through the stand-in in its own protocol: depends_on waits for a server
// that answers, as with the real images.
//   node probe.mjs forward postgres|redis|rabbitmq   the container's process, until SIGTERM
//   node probe.mjs postgres|redis|rabbitmq           one check; exit 0 when the server answered
import { connect, createServer } from 'node:net';
import { splice } from './splice.mjs';

const PROBES = {
  // SSLRequest: a PostgreSQL server answers one byte, S or N.
  postgres: {
    port: 5432,
    hello: Buffer.from([0, 0, 0, 8, 4, 210, 22, 47]),
    ok: (b) => b[0] === 0x53 || b[0] === 0x4e,
    say: 'accepting connections',
  },
  redis: { port: 6379, hello: Buffer.from('PING\r\n'), ok: (b) => /^(\+PONG|-NOAUTH)/.test(b.toString()), say: 'PONG' },
  // The AMQP 0-9-1 protocol header: the broker answers with a Connection.Start method frame (type 1).
  rabbitmq: { port: 5672, hello: Buffer.from('AMQP\x00\x00\x09\x01', 'latin1'), ok: (b) => b[0] === 1, say: 'Ping succeeded' },
};

function forward(probe) {
  const upstreamHost = process.env.STAND_IN_UPSTREAM;
  if (!upstreamHost) throw new Error('STAND_IN_UPSTREAM (the host address to forward to) is not set');
  createServer({ allowHalfOpen: true }, (client) => {
    const upstream = connect({ host: upstreamHost, port: probe.port, allowHalfOpen: true });
    splice(client, upstream);
  }).listen(probe.port);
  process.on('SIGTERM', () => process.exit(0));
}

function check(kind, probe) {
  const socket = connect({ host: '127.0.0.1', port: probe.port });
  const fail = (why) => {
    console.error(`${kind} on port ${probe.port}: ${why}`);
    process.exit(1);
  };
  socket.setTimeout(3000, () => fail('no answer in 3 s'));
  socket.on('error', (err) => fail(err.message));
  socket.on('connect', () => socket.write(probe.hello));
  // The stand-in accepts first and then reaches for the server: a close without an answer is a failure.
  socket.on('close', () => fail('closed without an answer'));
  socket.once('data', (data) => {
    socket.destroy();
    if (!probe.ok(data)) fail(`unexpected answer ${JSON.stringify(data.subarray(0, 16).toString('latin1'))}`);
    console.log(probe.say);
    process.exit(0);
  });
}

const [mode, kind = mode] = process.argv.slice(2);
const probe = PROBES[kind];
if (!probe || (mode !== 'forward' && mode !== kind)) {
  console.error('usage: node probe.mjs [forward] postgres|redis|rabbitmq');
  process.exit(2);
}
if (mode === 'forward') forward(probe);
else check(kind, probe);
