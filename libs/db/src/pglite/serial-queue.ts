import { AsyncLocalStorage } from 'node:async_hooks';

interface Holder {
  active: boolean;
}

/**
 * Runs tasks one after another. PGlite is a single connection: a transaction's statements must
 * not interleave with anyone else's, so every use of it, a lone query included, waits its turn.
 *
 * A task that asks for the queue again (db.query inside db.transaction) would wait for itself
 * forever; the async context tells us who holds the queue, so that fails at once instead.
 */
export class SerialQueue {
  #tail: Promise<void> = Promise.resolve();
  readonly #holder = new AsyncLocalStorage<Holder>();

  run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#holder.getStore()?.active) {
      return Promise.reject(
        new Error(
          "The embedded database is already held by this call chain (a query on the Db inside its own transaction?); use the transaction's `tx`",
        ),
      );
    }
    const holder: Holder = { active: false };
    const result = this.#tail.then(async () => {
      holder.active = true;
      try {
        return await this.#holder.run(holder, task);
      } finally {
        holder.active = false;
      }
    });
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
