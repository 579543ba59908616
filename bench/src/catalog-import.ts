import { readFileSync } from 'node:fs';
import type { ServiceProcess } from './processes.js';

/** Where import requests go: the catalog itself (gateway-signed context) or the gateway (key, secret, Admin JWT). */
export interface ImportTarget {
  label: string;
  url: string;
  headers(method: 'POST', path: string): Record<string, string>;
}

const BRANDS = 1_000;

/** A generated DAC entry, ~260 bytes of JSON. */
function benchEntry(i: number): Record<string, unknown> {
  return {
    type: 'dac',
    brand: `Bench Brand ${i % BRANDS}`,
    model: `Import Model ${i}`,
    price: (i % 5000) + 0.99,
    currency: 'USD',
    releaseYear: 2000 + (i % 25),
    specs: {
      chip: 'ESS ES9038Q2M',
      maxSampleRateHz: 384000,
      maxBitDepth: 32,
      dsd: 'DSD256',
      inputs: ['usb', 'optical'],
      outputs: ['rca', 'xlr'],
    },
  };
}

/** Request bodies of `batch` entries, built before timing: the client's JSON.stringify is not the system's work. */
export function importBodies(rows: number, batch: number): string[] {
  const bodies: string[] = [];
  for (let start = 0; start < rows; start += batch) {
    bodies.push(JSON.stringify(Array.from({ length: Math.min(batch, rows - start) }, (_, k) => benchEntry(start + k))));
  }
  return bodies;
}

/** The catalog process's peak resident memory so far (VmHWM), in MiB. */
export function peakRssMiB(process: ServiceProcess): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${process.child.pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/**
 * Sends every body with `inFlight` requests at a time and prints rows/s over the whole run, the
 * counts the service answered, and the slowest and fastest request.
 */
async function timeImport(target: ImportTarget, bodies: string[], rows: number, label: string, query = '', inFlight = 1): Promise<void> {
  const path = `/api/Dac/import${query}`;
  const started = performance.now();
  let inserted = 0;
  let updated = 0;
  const perRequest: number[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const t = performance.now();
      const response = await fetch(target.url + path, {
        method: 'POST',
        headers: { ...target.headers('POST', path), 'content-type': 'application/json' },
        body,
      });
      const counts = (await response.json()) as { inserted: number; updated: number };
      if (response.status !== 200) throw new Error(`import answered ${response.status}: ${JSON.stringify(counts)}`);
      inserted += counts.inserted;
      updated += counts.updated;
      perRequest.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `${`${target.label}: ${label}`.padEnd(52)} ${(rows / seconds).toFixed(0).padStart(7)} rows/s  ${seconds.toFixed(2)} s  (${inserted} inserted, ${updated} updated; per request ${Math.min(...perRequest).toFixed(0)}-${Math.max(...perRequest).toFixed(0)} ms)`,
  );
}

/**
 * The import rows of docs/performance.md against one target: new products and all updates, each
 * sequential and with `inFlight` requests at a time, and a dry run. `emptyCatalog` truncates the table.
 */
export async function importScenarios(
  target: ImportTarget,
  bodies: string[],
  rows: number,
  inFlight: number,
  emptyCatalog: () => Promise<void>,
): Promise<void> {
  await emptyCatalog();
  await timeImport(target, bodies, rows, 'new products, sequential');
  await timeImport(target, bodies, rows, 'all updates, sequential');
  await timeImport(target, bodies, rows, 'dry run', '?dryRun=true');
  await emptyCatalog();
  await timeImport(target, bodies, rows, `new products, ${inFlight} in flight`, '', inFlight);
  await timeImport(target, bodies, rows, `all updates, ${inFlight} in flight`, '', inFlight);
}
