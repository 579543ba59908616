// TCP forwarding for the compose smoke run (scripts/container-smoke.sh, docs/deploy.md): the
// containers sit on the compose network, the shared PostgreSQL, Redis and RabbitMQ listen on the
// host's loopback only. This listens on the compose network's gateway address (reachable from the
// containers, not from outside the host) and passes each connection to 127.0.0.1 on the same port,
// or on <to> for <port>:<to> (the run's own redis-server).
//   node scripts/container-smoke/forward.mjs <listen address> <port>[:<to>]...
import { connect, createServer } from 'node:net';
import { splice } from '../../deploy/podman/stand-ins/splice.mjs';

const [, , address, ...ports] = process.argv;
if (!address || ports.length === 0 || process.argv.includes('--help')) {
  console.log('usage: node scripts/container-smoke/forward.mjs <listen address> <port>[:<to>]...');
  process.exit(address ? 0 : 2);
}

function pipeTo(host, port) {
  return (client) => {
    const upstream = connect({ host, port, allowHalfOpen: true });
    splice(client, upstream);
  };
}

// The network's bridge gets its address when the first container joins: until then listening
// fails with EADDRNOTAVAIL, so that is retried (for two minutes).
function listen(port, to, deadline) {
  const server = createServer({ allowHalfOpen: true }, pipeTo('127.0.0.1', to));
  server.on('error', (err) => {
    if (err.code === 'EADDRNOTAVAIL' && Date.now() < deadline) {
      setTimeout(() => listen(port, to, deadline), 200);
      return;
    }
    console.error(`forward: ${address}:${port}: ${err.message}`);
    process.exit(1);
  });
  server.listen(port, address, () => console.log(`forward: ${address}:${port} -> 127.0.0.1:${to}`));
}

for (const spec of ports) {
  const [port, to = port] = spec.split(':').map(Number);
  listen(port, to, Date.now() + 120_000);
}
process.on('SIGTERM', () => process.exit(0));
