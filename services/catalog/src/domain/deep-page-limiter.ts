/**
 * Deep `page` requests (OFFSET scans that read and drop every row before the page) may hold at
 * most `concurrency` database connections at once; the rest wait here, holding no connection. A
 * cheap request (page 1, a cursor page) never enters, so it always finds the other connections of
 * the pool free however many deep pages are asked for: 16 deep requests cost one another time,
 * not everyone else. A spec-valid `page` keeps its exact answer; it may only wait longer.
 */
export class DeepPageLimiter {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly concurrency: number) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('the deep-page concurrency must be a positive integer');
  }

  /** How many deep requests run and wait now (for tests and metrics). */
  get state(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiter (running stays the same), so none can be overtaken.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
