import type { Logger } from '@acs/logger';

type Step = () => unknown;

/**
 * What a start-up opened, to be closed in reverse order (the server before the pool it uses).
 * `close()` runs every step once, newest first; a step that fails is logged with its name and the
 * rest still run, so one stuck resource never keeps the others open. It never rejects.
 */
export interface CloseStack {
  /**
   * Registers how to close something just opened. With `withinMs`, a step still running after that
   * long is logged (a warning naming it) and left behind, and the next step runs: for closes that
   * wait on a peer (QUIT's reply, AMQP's close-ok, a FIN), which must not hold up a stop for ever.
   */
  defer(name: string, step: Step, withinMs?: number): void;
  close(): Promise<void>;
}

export function createCloseStack(logger: Logger): CloseStack {
  const steps: NamedStep[] = [];
  let closing: Promise<void> | null = null;
  const runAll = async (): Promise<void> => {
    for (let next = steps.pop(); next; next = steps.pop()) {
      const slow = warnWhenSlow(logger, next.name);
      await closeLogged(logger, next);
      clearTimeout(slow);
    }
  };
  return {
    defer: (name, step, withinMs) => {
      steps.push({ name, step, withinMs });
    },
    close: () => (closing ??= runAll()),
  };
}

/** A close step with its name (for the log) and, optionally, how long it may take before it is left behind. */
export interface NamedStep {
  name: string;
  step: Step;
  withinMs?: number;
}

/**
 * Runs independent closes at the same time, each bounded and logged as a deferred step is: the
 * slowest one, not their sum, is what it adds to a stop. Resolves once each is done or left behind;
 * never rejects.
 */
export async function closeTogether(logger: Logger, steps: readonly NamedStep[]): Promise<void> {
  await Promise.all(steps.map((next) => closeLogged(logger, next)));
}

/** One step, bounded by its withinMs; a failure is logged with its name, never thrown. */
async function closeLogged(logger: Logger, { name, step, withinMs }: NamedStep): Promise<void> {
  try {
    await runBounded(logger, name, step, withinMs);
  } catch (err) {
    logger.error({ err, step: name }, `could not close ${name}`);
  }
}

/**
 * A close still running after this long is logged by name while it runs: when a stop is slow (or
 * an outer stack leaves this whole stack behind), the log says which part is holding it.
 */
const SLOW_CLOSE_MS = 1_000;

function warnWhenSlow(logger: Logger, name: string): NodeJS.Timeout {
  const timer = setTimeout(() => logger.warn({ step: name }, `still closing ${name} after ${SLOW_CLOSE_MS} ms`), SLOW_CLOSE_MS);
  timer.unref();
  return timer;
}

async function runBounded(logger: Logger, name: string, step: Step, withinMs: number | undefined): Promise<void> {
  if (withinMs === undefined) {
    await step();
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), withinMs);
  });
  const running = Promise.resolve().then(step);
  try {
    if ((await Promise.race([running, late])) === 'late') {
      logger.warn({ step: name, withinMs }, `${name} did not close within ${withinMs} ms; going on without it`);
      // A step left behind may still fail later: logged, never an unhandled rejection.
      running.catch((err: unknown) => logger.error({ err, step: name }, `could not close ${name}`));
    }
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs a start-up with a fresh close stack: on success its result keeps the stack (usually as its
 * `close`), on failure everything opened so far is closed before the error goes on.
 */
export async function startWithCloseStack<T>(logger: Logger, start: (stack: CloseStack) => Promise<T>): Promise<T> {
  const stack = createCloseStack(logger);
  try {
    return await start(stack);
  } catch (err) {
    await stack.close();
    throw err;
  }
}
