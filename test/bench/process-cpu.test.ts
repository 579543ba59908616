import { describe, expect, it } from '@jest/globals';
import { processCpuSeconds, ticksCpuSeconds } from '../../bench/src/process-cpu.js';

// The bench's CPU per request is read from /proc: the scheduler's run time of every thread, so that a 1 s round
// is not rounded to 10 ms clock ticks. It must agree with the ticks and grow with the CPU a process burns.
function burn(milliseconds: number): void {
  const until = performance.now() + milliseconds;
  let x = 0;
  while (performance.now() < until) x += Math.sqrt(x + 1);
  if (x < 0) throw new Error('unreachable');
}

describe('processCpuSeconds', () => {
  it('counts the CPU this process burns, in agreement with /proc/<pid>/stat', () => {
    const before = processCpuSeconds(process.pid);
    burn(200);
    const after = processCpuSeconds(process.pid);
    // 200 ms of busy wall time on this thread, less whatever the machine took from it; never more than the wall
    // time plus what the other threads (GC, the pool) ran meanwhile.
    expect(after - before).toBeGreaterThan(0.1);
    expect(after - before).toBeLessThan(1);
    expect(Math.abs(processCpuSeconds(process.pid) - ticksCpuSeconds(process.pid))).toBeLessThan(0.1);
  });

  it('is finer than a clock tick', () => {
    const before = processCpuSeconds(process.pid);
    burn(2);
    const spent = processCpuSeconds(process.pid) - before;
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThan(0.05);
  });

  it('fails loudly for a process that does not exist', () => {
    expect(() => processCpuSeconds(2 ** 22 + 12345)).toThrow();
  });
});
