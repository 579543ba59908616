export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

type Truthy<T> = Exclude<T, null | undefined | false | 0 | ''>;

/** Polls until `probe` returns something truthy; fails with `what` so a timeout says what never happened. */
export async function waitFor<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 10_000): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await sleep(20);
  }
}
