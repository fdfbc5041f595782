import { keepRunningWhenOutputCloses } from './closed-output.js';
import { createLogger, LOG_FORMATS, LOG_LEVELS } from '../logging/logger.js';
import { formatProxySummary, startValidationProxy } from '../proxy/validation-proxy.js';
import { oneOf, parseArgs, type FlagSpec } from './parse-args.js';

const PROXY_FLAGS = {
  upstream: { type: 'string' },
  port: { type: 'number' },
  host: { type: 'string' },
  contract: { type: 'string' },
  'timeout-ms': { type: 'number' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  help: { type: 'boolean' },
} satisfies Record<string, FlagSpec>;

export const PROXY_USAGE = `Usage: shipmock proxy --upstream URL [options]

A validating proxy in front of a real implementation: forwards every request unchanged,
validates the request and the answer against the contract, and passes the answer through,
adding X-Shipmock-Violations ([{in, field, message}] as JSON, [] when clean) and
X-Shipmock-Violations-Count. Violations are logged;
a summary is printed at exit (Ctrl-C / SIGTERM), and the exit status is 1 if any were seen.

  --upstream URL           the implementation under test (its path prefix is kept)
  --port N                 port to listen on (default 4020; 0 picks a free port)
  --host ADDR              address to bind (default 127.0.0.1)
  --contract FILE          OpenAPI 3.1 contract to validate against (default: the bundled one)
  --timeout-ms N           upstream timeout, answered 502 after it (default 30000)
  --log-level LEVEL        fatal|error|warn|info|debug|trace|silent (default info)
  --log-format FORMAT      pretty|json (default pretty)
`;

/** `shipmock proxy`: runs until SIGINT/SIGTERM, then prints the summary. */
export async function proxyCommand(argv: string[]): Promise<void> {
  const { flags } = parseArgs(argv, PROXY_FLAGS);
  if (flags.help) {
    process.stdout.write(PROXY_USAGE);
    return;
  }
  keepRunningWhenOutputCloses();
  if (!flags.upstream) throw new Error('shipmock proxy needs --upstream URL; see --help');
  try {
    new URL(flags.upstream);
  } catch {
    throw new Error(`--upstream is not a URL: ${flags.upstream}`);
  }
  const logger = createLogger({ level: oneOf('--log-level', flags['log-level'], LOG_LEVELS) ?? 'info', format: oneOf('--log-format', flags['log-format'], LOG_FORMATS) ?? 'pretty' });
  const proxy = await startValidationProxy({
    upstream: flags.upstream,
    port: flags.port ?? 4020,
    host: flags.host,
    contract: flags.contract,
    timeoutMs: flags['timeout-ms'],
    logger,
  });
  logger.info({ url: proxy.url, upstream: flags.upstream }, 'shipmock validation proxy listening');
  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    const summary = proxy.summary();
    process.stdout.write(formatProxySummary(summary));
    proxy.close().then(
      () => process.exit(summary.violations > 0 ? 1 : 0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}
