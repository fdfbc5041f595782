import { lazyModule } from '../util/lazy-module.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['pretty', 'json'] as const;

/**
 * The mock's logger: structured (`json`, pino's lines as they are) or `pretty`
 * ("HH:MM:SS LEVEL message key=value" for a person at a terminal). Pretty output needs none of
 * pino, so pino is loaded only for `json` (start-up budget, src/util/lazy-module.ts).
 * The interface is the part of pino's the code uses, so either implementation fits.
 */
export type LogMethod = (fieldsOrMessage: object | string, message?: string) => void;

export interface Logger {
  level: string;
  isLevelEnabled(level: string): boolean;
  fatal: LogMethod;
  error: LogMethod;
  warn: LogMethod;
  info: LogMethod;
  debug: LogMethod;
  trace: LogMethod;
}

const pino = lazyModule<typeof import('pino')>('pino');

const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

/**
 * @example
 * const logger = createLogger({ level: 'info', format: 'pretty' });
 * logger.info({ url }, 'shipmock listening'); // 12:00:01 INFO  shipmock listening url=http://…
 */
export function createLogger(options: { level: LogLevel; format: 'pretty' | 'json'; destination?: NodeJS.WritableStream }): Logger {
  const out = options.destination ?? process.stdout;
  if (options.format === 'json') return pino().pino({ level: options.level, base: undefined }, out as never);
  return createPrettyLogger(options.level, out);
}

function createPrettyLogger(initial: LogLevel, out: NodeJS.WritableStream): Logger {
  let threshold = LEVELS[initial];
  const method = (name: string): LogMethod => (fieldsOrMessage, message) => {
    if (LEVELS[name] < threshold) return;
    const fields = typeof fieldsOrMessage === 'string' ? {} : fieldsOrMessage;
    const text = typeof fieldsOrMessage === 'string' ? fieldsOrMessage : message ?? '';
    const extras = Object.entries(fields)
      .map(([key, value]) => `${key}=${formatValue(value)}`)
      .join(' ');
    // Wall time on purpose: log lines are for the person watching, not part of the virtual world.
    const clock = new Date().toISOString().slice(11, 19);
    out.write(`${clock} ${name.toUpperCase().padEnd(5)} ${text}${extras ? ` ${extras}` : ''}\n`);
  };
  return {
    get level() {
      return Object.keys(LEVELS).find((name) => LEVELS[name] === threshold) ?? 'info';
    },
    set level(name: string) {
      threshold = LEVELS[name] ?? threshold;
    },
    isLevelEnabled: (name) => LEVELS[name] >= threshold,
    fatal: method('fatal'),
    error: method('error'),
    warn: method('warn'),
    info: method('info'),
    debug: method('debug'),
    trace: method('trace'),
  };
}

function formatValue(value: unknown): string {
  if (value instanceof Error) return `${value.message}\n${value.stack ?? ''}`;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
