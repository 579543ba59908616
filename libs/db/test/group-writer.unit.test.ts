import { describe, expect, it } from '@jest/globals';
import { groupWriter } from '../src/group-writer.js';

/**
 * A writer whose first group waits until `release()`, so the items written meanwhile queue up; `groups`
 * lists every group it was given, in order.
 */
function heldWriter(writeItems: (items: number[]) => number[]) {
  const groups: number[][] = [];
  let release!: () => void;
  const firstHeld = new Promise<void>((resolve) => (release = resolve));
  const write = groupWriter(async (items: number[]) => {
    groups.push(items);
    if (groups.length === 1) await firstHeld;
    return writeItems(items);
  });
  return { write, groups, release };
}

describe('a group writer', () => {
  it('writes the first item alone and the items arriving meanwhile as one group, each answered its own result', async () => {
    const { write, groups, release } = heldWriter((items) => items.map((n) => n * 10));

    const first = write(1);
    const later = [write(2), write(3), write(4)];
    release();

    expect(await Promise.all([first, ...later])).toEqual([10, 20, 30, 40]);
    expect(groups).toEqual([[1], [2, 3, 4]]);
  });

  it('writes a failed group again one item at a time, so only the bad item fails', async () => {
    const { write, groups, release } = heldWriter((items) => {
      if (items.includes(13)) throw new Error('bad item');
      return items;
    });

    const first = write(1);
    const later = [write(12), write(13), write(14)].map((p) =>
      p.then(
        (n) => `ok ${n}`,
        (err: Error) => err.message,
      ),
    );
    release();

    expect(await first).toBe(1);
    expect(await Promise.all(later)).toEqual(['ok 12', 'bad item', 'ok 14']);
    expect(groups).toEqual([[1], [12, 13, 14], [12], [13], [14]]);
  });
});
