import { pino, type Logger } from 'pino';
import type { LogLevel } from '../config/options.js';

export type { Logger };

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/**
 * pino for structured logs. `json` writes pino's lines as they are; `pretty` turns each line
 * into "HH:MM:SS LEVEL message key=value" for a person at a terminal (no worker thread, so
 * start-up stays fast).
 */
export function createLogger(options: { level: LogLevel; format: 'pretty' | 'json'; destination?: NodeJS.WritableStream }): Logger {
  const out = options.destination ?? process.stdout;
  if (options.format === 'json') return pino({ level: options.level, base: undefined }, out as any);
  const pretty = {
    write(line: string) {
      const { level, time, msg, ...rest } = JSON.parse(line);
      const extras = Object.entries(rest)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(' ');
      const clock = new Date(time).toISOString().slice(11, 19);
      out.write(`${clock} ${(LEVEL_NAMES[level] ?? level).padEnd(5)} ${msg ?? ''}${extras ? ` ${extras}` : ''}\n`);
    },
  };
  return pino({ level: options.level, base: undefined }, pretty);
}
