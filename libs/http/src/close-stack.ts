import type { Logger } from '@acs/logger';

type Step = () => unknown;

/**
 * What a start-up opened, to be closed in reverse order (the server before the pool it uses).
 * `close()` runs every step once, newest first; a step that fails is logged with its name and the
 * rest still run, so one stuck resource never keeps the others open. It never rejects.
 */
export interface CloseStack {
  /** Registers how to close something just opened. */
  defer(name: string, step: Step): void;
  close(): Promise<void>;
}

export function createCloseStack(logger: Logger): CloseStack {
  const steps: { name: string; step: Step }[] = [];
  let closing: Promise<void> | null = null;
  const runAll = async (): Promise<void> => {
    for (let next = steps.pop(); next; next = steps.pop()) {
      try {
        await next.step();
      } catch (err) {
        logger.error({ err, step: next.name }, `could not close ${next.name}`);
      }
    }
  };
  return {
    defer: (name, step) => {
      steps.push({ name, step });
    },
    close: () => (closing ??= runAll()),
  };
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
