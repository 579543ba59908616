/**
 * The operator typed something the command cannot do (a missing option, an unknown command).
 * The runner prints its message as is, without a stack, and exits 1.
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
