// The journey's webhook receiver (scripts/container-smoke/journey.mjs): an HTTP server on the host,
// at its address on the containers' network (the smoke's WEBHOOK_RECEIVER_HOST), where the webhooks
// container posts deliveries. Each request is kept as it arrived; `signed` checks one with the
// standardwebhooks package (the specification's reference code, not ours).
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** Starts listening on host:<free port>; answers every POST 200 and remembers it. */
export async function startReceiver(host) {
  const received = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end();
    });
  });
  await new Promise((resolve, reject) => server.once('error', reject).listen(0, host, resolve));
  return {
    url: (path) => `http://${host}:${server.address().port}${path}`,
    at: (path) => received.filter((request) => request.path === path),
    close: () => {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections(); // the sender's keep-alive connection would hold the close
      return closed;
    },
  };
}

/** The payload when the request carries a valid Standard Webhooks signature for this secret, else throws. */
export function signed(secret, request) {
  const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(request.headers[h])]));
  return new Webhook(secret).verify(request.body, headers);
}
