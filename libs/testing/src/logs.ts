import { createLogger, type Logger } from '@acs/logger';

export interface LogLine {
  level: string;
  msg: string;
  [key: string]: unknown;
}

/** A real logger whose JSON lines the test reads back (parsed, and as raw text to search for leaks). */
export function captureLogger(name = 'test', level = 'debug'): { logger: Logger; lines: LogLine[]; text(): string } {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const logger = createLogger({
    name,
    level,
    destination: {
      write: (line: string) => {
        raw.push(line);
        lines.push(JSON.parse(line) as LogLine);
      },
    },
  });
  return { logger, lines, text: () => raw.join('') };
}

export const silentLogger = (name = 'test'): Logger => createLogger({ name, level: 'silent' });
