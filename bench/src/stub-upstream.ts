import { createServer } from 'node:http';

// Serves one fixed response (a real catalog page fetched by the bench) at the cost of a single
// write, so the proxies in front of it are measured without the catalog's own CPU in the way.
const body = Buffer.from(process.env.STUB_BODY ?? '{}');
const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(req.url === '/healthz' ? undefined : body);
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
