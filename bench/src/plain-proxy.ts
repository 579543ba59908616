import { createServer } from 'node:http';
import { Pool } from 'undici';

// Baseline for the benchmark: the least a Node proxy can do (node:http + undici stream, no auth,
// no context), so the gateway's own cost per request can be read as the difference.
const upstream = new Pool(process.env.UPSTREAM_URL!, { connections: 64 });
const server = createServer((req, res) => {
  if (req.url === '/healthz') {
    res.end('ok');
    return;
  }
  upstream
    .stream(
      {
        path: req.url!,
        method: 'GET',
        headers: { 'x-acs-context': req.headers['x-acs-context'] as string, 'x-acs-signature': req.headers['x-acs-signature'] as string },
      },
      ({ statusCode, headers }) => {
        res.writeHead(statusCode, headers as Record<string, string>);
        return res;
      },
    )
    .catch(() => res.destroy());
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
