import { keepRunningWhenOutputCloses } from './closed-output.js';
import { createLogger, LOG_FORMATS, LOG_LEVELS, type Logger } from '../logging/logger.js';
import { oneOf, type FlagSpec } from './parse-args.js';

/**
 * What the commands in front of a real service share (`proxy`, `record`, `compare`): their
 * common flags, the lines of help that describe them, and their start — the output may close
 * under them, the upstream must be a URL, and they log alike.
 */
export const UPSTREAM_FLAGS = {
  upstream: { type: 'string' },
  port: { type: 'number' },
  host: { type: 'string' },
  contract: { type: 'string' },
  'timeout-ms': { type: 'number' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  help: { type: 'boolean' },
} satisfies Record<string, FlagSpec>;

/** Help lines of the log flags, the last of every such command's usage. */
export const LOG_FLAG_LINES = `  --log-level LEVEL        fatal|error|warn|info|debug|trace|silent (default info)
  --log-format FORMAT      pretty|json (default pretty)
`;

/**
 * Checks what every upstream command needs and starts its logger; throws a one-line message
 * naming the flag (the CLI prints it and exits 2).
 * @example const { upstream, logger } = startUpstreamCommand('record', flags, positionals);
 */
export function startUpstreamCommand(
  command: string,
  flags: { upstream?: string; 'log-level'?: string; 'log-format'?: string },
  positionals: string[] = [],
): { upstream: string; logger: Logger } {
  keepRunningWhenOutputCloses();
  if (positionals.length) throw new Error(`unexpected argument ${positionals[0]}: shipmock ${command} takes only flags (see --help)`);
  const { upstream } = flags;
  if (!upstream) throw new Error(`shipmock ${command} needs --upstream URL; see --help`);
  try {
    new URL(upstream);
  } catch {
    throw new Error(`--upstream is not a URL: ${upstream}`);
  }
  const logger = createLogger({ level: oneOf('--log-level', flags['log-level'], LOG_LEVELS) ?? 'info', format: oneOf('--log-format', flags['log-format'], LOG_FORMATS) ?? 'pretty' });
  return { upstream, logger };
}
