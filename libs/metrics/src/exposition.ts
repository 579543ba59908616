import type { ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';

export const METRICS_PATH = '/metrics';

export interface Exposition {
  contentType: string;
  body: string;
}

/** The Prometheus text exposition of a registry, with the content type that registry writes. */
export async function metricsExposition(registry: Registry): Promise<Exposition> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}

/** Answers a scrape on plain node:http; a collector that fails gives a bare 500 (the scrape shows as down) and is reported to `onError`. */
export async function sendMetrics(registry: Registry, res: ServerResponse, onError: (err: unknown) => void = () => {}): Promise<void> {
  let exposition: Exposition;
  try {
    exposition = await metricsExposition(registry);
  } catch (err) {
    onError(err);
    res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('metrics could not be collected\n');
    return;
  }
  res.writeHead(200, { 'content-type': exposition.contentType, 'content-length': Buffer.byteLength(exposition.body) });
  res.end(exposition.body);
}
