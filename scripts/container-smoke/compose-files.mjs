// The compose files as compose merges them, for the smoke's scripts (compose-start.mjs, webhooks-reach.mjs):
// YAML merge keys (`<<: *app`), and per service each key a later file gives replacing an earlier file's
// value. That is compose's rule for the keys read here (depends_on, healthcheck, networks); compose merges
// environment maps by variable, which no script here reads.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** Each service's `keys`, merged across `files` in order: { service: { key: value } }. */
export function mergedServices(files, keys) {
  const services = {};
  for (const file of files) {
    for (const [name, service] of Object.entries(parse(readFileSync(file, 'utf8'), { merge: true }).services ?? {})) {
      services[name] ??= {};
      for (const key of keys) if (service?.[key] !== undefined) services[name][key] = service[key];
    }
  }
  return services;
}

/** The networks a service is on: its list (or map), else compose's `default`. */
export const networksOf = (service) =>
  service.networks === undefined ? ['default'] : Array.isArray(service.networks) ? service.networks : Object.keys(service.networks);
