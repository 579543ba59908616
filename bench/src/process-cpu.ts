import { readFileSync, readdirSync } from 'node:fs';

const CLOCK_TICKS_PER_SECOND = 100; // Linux USER_HZ

/**
 * The CPU seconds a process has run so far, all its threads: the sum of /proc/<pid>/task/<tid>/schedstat's first
 * field, the scheduler's own run time in nanoseconds. /proc/<pid>/stat's utime + stime count in clock ticks (10
 * ms), which at a 1 s round of ~0.5 s of CPU and ~5,000 requests is ±2 µs a request of rounding alone, as much as
 * the feature a budget judges. Falls back to those ticks where the kernel has no schedstat. A thread that ends
 * between two readings takes its time with it: Node's threads (libuv's pool, V8's workers) live as long as the process.
 */
export function processCpuSeconds(pid: number): number {
  try {
    let nanoseconds = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const line = readSchedstat(pid, tid);
      if (line !== null) nanoseconds += Number(line.slice(0, line.indexOf(' ')));
    }
    return nanoseconds / 1e9;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return ticksCpuSeconds(pid);
  }
}

/** A thread's schedstat line; null when the thread ended after the directory was listed. */
function readSchedstat(pid: number, tid: string): string | null {
  try {
    return readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && tidGone(pid, tid)) return null;
    throw err;
  }
}

function tidGone(pid: number, tid: string): boolean {
  try {
    readdirSync(`/proc/${pid}/task/${tid}`);
    return false;
  } catch {
    return true;
  }
}

/** utime + stime from /proc/<pid>/stat (clock ticks). */
export function ticksCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}
