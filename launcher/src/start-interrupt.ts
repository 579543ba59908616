/**
 * Ctrl-C (SIGINT) or SIGTERM while `npm start` is still starting: node's default would kill the
 * process mid-start (exit 130, nothing said, a half-written first start). Instead the start stops
 * at the next phase boundary, closes what had started, says so, and exits 130. A second signal
 * exits at once.
 */
export class StartInterrupted extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`start-up interrupted by ${signal}`);
    this.name = 'StartInterrupted';
  }
}

export interface StartGuard {
  /** Throws StartInterrupted once a signal came: call it between phases. */
  check(): void;
  /** The start is over (done or failed): signals are someone else's from here. */
  release(): void;
}

/** One per process: scripts/start.mjs takes the signals over with it before loading main.js, which then finds it. */
let current: StartGuard | undefined;

export function guardStart(write: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): StartGuard {
  current ??= createGuard(write);
  return current;
}

function createGuard(write: (line: string) => void): StartGuard {
  let received: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (received) {
      write(`${signal} again: exiting at once, without closing what had started.`);
      process.exit(130);
    }
    received = signal;
    write(`\n${signal}: stopping the start-up after the current step (press Ctrl-C again to exit at once)...`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    check: () => {
      if (received) throw new StartInterrupted(received);
    },
    release: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
