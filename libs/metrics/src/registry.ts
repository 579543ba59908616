import { Registry, collectDefaultMetrics } from 'prom-client';

let processMetrics: Registry | undefined;

/**
 * Node and process metrics (CPU, memory, event-loop lag, GC, handles), collected once per process.
 * The embedded mode runs every service in one process: each registry shares these collectors
 * instead of starting its own event-loop monitor and GC observer per service.
 */
function sharedProcessMetrics(): Registry {
  if (processMetrics === undefined) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}

/**
 * One registry per service: the process metrics plus whatever the service adds, every series
 * labelled `service="<name>"` so a dashboard can tell the embedded mode's services apart.
 */
export function createMetricsRegistry(service: string): Registry {
  const registry = Registry.merge([sharedProcessMetrics()]);
  registry.setDefaultLabels({ service });
  return registry;
}
