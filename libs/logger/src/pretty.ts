import type { DestinationStream } from 'pino';

// `LOG_FORMAT=pretty` (the default of `npm start` on a terminal): our JSON lines made readable,
// without a dependency. One line per entry: time, level, service, message, then the other fields.

const HIDDEN = new Set(['level', 'time', 'service', 'name', 'msg', 'pid', 'hostname']);
const COLOURS: Record<string, string> = {
  fatal: '\x1b[35m',
  error: '\x1b[31m',
  warn: '\x1b[33m',
  info: '\x1b[32m',
  debug: '\x1b[90m',
  trace: '\x1b[90m',
};
const RESET = '\x1b[0m';

/** One JSON log line as a person reads it. Lines that are not JSON pass through unchanged. */
export function prettyLine(line: string, colour = false): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const level = String(entry.level ?? '');
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 19) : '';
  const label = level.toUpperCase().padEnd(5);
  const rest = Object.fromEntries(Object.entries(entry).filter(([key]) => !HIDDEN.has(key) && key !== 'err'));
  const err = entry.err as { message?: string; stack?: string } | undefined;
  const parts = [
    time,
    colour ? `${COLOURS[level] ?? ''}${label}${RESET}` : label,
    `[${String(entry.service ?? '')}]`,
    String(entry.msg ?? ''),
  ];
  if (Object.keys(rest).length > 0) parts.push(JSON.stringify(rest));
  const text = parts.join(' ');
  return err ? `${text}\n    ${(err.stack ?? err.message ?? '').split('\n').join('\n    ')}` : text;
}

/** A pino destination that writes readable lines to `out` (stdout by default). */
export function prettyDestination(out: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout): DestinationStream {
  const colour = out.isTTY === true;
  return {
    write(chunk: string): void {
      for (const line of chunk.split('\n')) if (line.length > 0) out.write(`${prettyLine(line, colour)}\n`);
    },
  };
}
