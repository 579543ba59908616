import { describe, expect, it } from '@jest/globals';
import { processCpuSeconds, ticksCpuSeconds } from '../../bench/src/process-cpu.js';

// The bench's CPU per request is read from /proc: the scheduler's run time of every thread, so that a 1 s round
// is not rounded to 10 ms clock ticks. It must agree with what the kernel reports otherwise and grow with the CPU a
// process burns. Burnt by CPU time (getrusage, process.cpuUsage), not wall time: on a busy machine (two jest
// workers on two cores) 200 ms of wall time can be far less CPU.
function burnCpu(milliseconds: number): number {
  const start = process.cpuUsage();
  let x = 0;
  let spent = 0;
  while (spent < milliseconds * 1000) {
    for (let i = 0; i < 1000; i++) x += Math.sqrt(x + 1);
    const used = process.cpuUsage(start);
    spent = used.user + used.system;
  }
  if (x < 0) throw new Error('unreachable');
  return spent / 1e6;
}

describe('processCpuSeconds', () => {
  it('counts the CPU this process burns, in agreement with getrusage and /proc/<pid>/stat', () => {
    const before = processCpuSeconds(process.pid);
    const burnt = burnCpu(200);
    const after = processCpuSeconds(process.pid);
    // Both count every thread of the process; the other threads (GC, the pool) ran little meanwhile.
    expect(after - before).toBeGreaterThan(burnt - 0.03);
    expect(after - before).toBeLessThan(burnt + 0.05);
    expect(Math.abs(processCpuSeconds(process.pid) - ticksCpuSeconds(process.pid))).toBeLessThan(0.1);
  });

  it('is finer than a clock tick', () => {
    const before = processCpuSeconds(process.pid);
    burnCpu(2);
    const spent = processCpuSeconds(process.pid) - before;
    expect(spent).toBeGreaterThan(0.001);
    expect(spent).toBeLessThan(0.05);
  });

  it('fails loudly for a process that does not exist', () => {
    expect(() => processCpuSeconds(2 ** 22 + 12345)).toThrow();
  });
});
