import { afterEach, describe, expect, it } from '@jest/globals';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
// @ts-expect-error: a plain .mjs helper of the smoke run (no types)
import { splice } from '../../deploy/podman/stand-ins/splice.mjs';

// The smoke run's forwarders (deploy/podman/stand-ins/probe.mjs, scripts/container-smoke/forward.mjs)
// must behave as a transparent TCP proxy: a process's close that waits for its peer (pg's Terminate,
// a QUIT, AMQP's close-ok, a FIN) must see the same through them as without them.

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

function listen(onConnection: (socket: Socket) => void): Promise<number> {
  const server = createServer({ allowHalfOpen: true }, onConnection);
  servers.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** A forwarder as the smoke's: accepts, connects upstream, splices. */
const forwarder = (upstreamPort: number) =>
  listen((client) => splice(client, connect({ host: '127.0.0.1', port: upstreamPort, allowHalfOpen: true })));

describe('the smoke forwarders (splice.mjs)', () => {
  it("pass a half-close through: the client ends its writing and still gets the answer, then the server's FIN", async () => {
    // A server that answers only once the client has finished sending (as after pg's Terminate), then closes.
    const upstream = await listen((socket) => {
      let received = '';
      socket.on('data', (chunk) => (received += chunk));
      socket.on('end', () => socket.end(`got ${received}`));
    });
    const client = connect({ host: '127.0.0.1', port: await forwarder(await forwarder(upstream)), allowHalfOpen: true });
    let answer = '';
    client.on('data', (chunk) => (answer += chunk));
    const ended = new Promise<void>((resolve) => client.on('end', resolve));
    client.end('last request');
    await ended;
    expect(answer).toBe('got last request');
  });

  it('pass a reset through: the client sees its connection end when the server drops it', async () => {
    const upstream = await listen((socket) => socket.on('data', () => socket.resetAndDestroy()));
    const client = connect({ host: '127.0.0.1', port: await forwarder(upstream) });
    client.on('error', () => {});
    const closed = new Promise<void>((resolve) => client.on('close', () => resolve()));
    client.write('hello');
    await closed;
    expect(client.destroyed).toBe(true);
  });
});
