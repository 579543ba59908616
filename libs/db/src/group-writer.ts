/** Writes items in groups; each caller waits for the commit of the group its item went into. */
export type GroupWriter<In, Out> = (item: In) => Promise<Out>;

interface Waiting<In, Out> {
  item: In;
  resolve(result: Out): void;
  reject(err: unknown): void;
}

/**
 * Group commit: the first item is written at once, and every item that arrives while a write is
 * under way waits for the next one, which takes them all (`writeGroup` answers one result per
 * item, in order). So a quiet service adds no delay, and a busy one commits once per group
 * instead of once per item: the commits, not the CPU, were what capped the webhooks service, and
 * a commit under identity's audit-chain lock is what serialized sign-ins (docs/performance.md). A
 * group that fails is written again one item at a time, so a
 * bad item fails only its own caller.
 */
export function groupWriter<In, Out>(writeGroup: (items: In[]) => Promise<Out[]>): GroupWriter<In, Out> {
  let waiting: Waiting<In, Out>[] = [];
  let writing = false;

  async function writeOneByOne(group: Waiting<In, Out>[]): Promise<void> {
    for (const entry of group) {
      try {
        entry.resolve((await writeGroup([entry.item]))[0]!);
      } catch (err) {
        entry.reject(err);
      }
    }
  }

  async function writeGroupOf(group: Waiting<In, Out>[]): Promise<void> {
    try {
      const results = await writeGroup(group.map((entry) => entry.item));
      for (const [i, entry] of group.entries()) entry.resolve(results[i]!);
    } catch (err) {
      if (group.length === 1) group[0]!.reject(err);
      else await writeOneByOne(group);
    }
  }

  async function drain(): Promise<void> {
    writing = true;
    try {
      while (waiting.length > 0) {
        const group = waiting;
        waiting = [];
        await writeGroupOf(group);
      }
    } finally {
      writing = false;
    }
  }

  return (item) =>
    new Promise<Out>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (!writing) void drain();
    });
}
