import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/*
 * --pin: the proxy under test (each gateway, the plain proxy) runs alone on the last CPU; the bench itself and
 * everything it starts from then on (wrk, the stub, its Redis, the services) share the others, as children
 * inherit the bench's CPU affinity. A proxy then no longer competes with the load generator for a core, so
 * its CPU per request varies less from round to round (docs/performance.md: a feature's +3 µs is otherwise
 * lost in ±5 µs of noise on two cores).
 */

export interface Pinning {
  /** taskset's CPU list for the proxies under test. */
  proxies: string;
  /** taskset's CPU list for everything else. */
  rest: string;
}

function taskset(args: string[]): void {
  execFileSync('taskset', args, { stdio: 'ignore' });
}

/** Null without --pin; else pins this process to the CPUs of the rest (do it before starting anything). */
export function pinBench(enabled: boolean): Pinning | null {
  if (!enabled) return null;
  const cpus = availableParallelism();
  if (cpus < 2) throw new Error('--pin needs at least 2 CPUs');
  const pinning = { proxies: String(cpus - 1), rest: cpus === 2 ? '0' : `0-${cpus - 2}` };
  try {
    taskset(['-a', '-p', '-c', pinning.rest, String(process.pid)]);
  } catch (err) {
    throw new Error(`--pin needs taskset (Debian package util-linux): ${(err as Error).message}`);
  }
  return pinning;
}

/** Whether a process the bench starts is a proxy under test (named as gateway-bench.ts and gateway-setup.ts name them). */
export const isProxyUnderTest = (name: string): boolean => name.startsWith('gateway') || name === 'plain proxy' || name === 'floor proxy';

/** Moves a proxy under test (all its threads) to its own CPU. */
export function pinProxy(pinning: Pinning, pid: number): void {
  taskset(['-a', '-p', '-c', pinning.proxies, String(pid)]);
}
