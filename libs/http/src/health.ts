import { Router } from '@koa/router';
import type { AppState } from './types.js';

export interface Readiness {
  ready: boolean;
  /** One entry per dependency: "ok" or what is wrong (never a secret or a connection string). */
  checks: Record<string, string>;
}

export type ReadinessCheck = () => Promise<string>;

/** Runs every check; a check that throws reports its message instead of failing the probe. */
export async function runChecks(checks: Record<string, ReadinessCheck>): Promise<Readiness> {
  const names = Object.keys(checks);
  const outcomes = await Promise.all(
    names.map(async (name) => {
      try {
        return await checks[name]!();
      } catch (err) {
        return err instanceof Error ? err.message : 'failed';
      }
    }),
  );
  const report: Record<string, string> = {};
  for (const [i, name] of names.entries()) report[name] = outcomes[i]!;
  return { ready: outcomes.every((outcome) => outcome === 'ok'), checks: report };
}

/** `/healthz`: the process is alive. `/readyz`: its dependencies answer and its schema is migrated. createHttpApp mounts both. */
export function probeRoutes(checks: Record<string, ReadinessCheck>): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const readiness = await runChecks(checks);
    ctx.status = readiness.ready ? 200 : 503;
    ctx.body = readiness;
  });
  return router;
}
