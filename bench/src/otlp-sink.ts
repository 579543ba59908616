import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpSink {
  url: string;
  exports(): number;
  bytes(): number;
  close(): Promise<void>;
}

/** Accepts OTLP/HTTP exports and throws them away (a collector's cost is not the gateway's): counts requests and bytes. */
export async function startOtlpSink(): Promise<OtlpSink> {
  let requests = 0;
  let received = 0;
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (received += chunk.length));
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => requests,
    bytes: () => received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
