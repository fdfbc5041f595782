import { formatProxySummary, startValidationProxy } from '../proxy/validation-proxy.js';
import { parseArgs, portOf } from './parse-args.js';
import { LOG_FLAG_LINES, startUpstreamCommand, UPSTREAM_FLAGS } from './upstream-command.js';

const PROXY_FLAGS = UPSTREAM_FLAGS;

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
${LOG_FLAG_LINES}`;

/** `shipmock proxy`: runs until SIGINT/SIGTERM, then prints the summary. */
export async function proxyCommand(argv: string[]): Promise<void> {
  const { flags } = parseArgs(argv, PROXY_FLAGS);
  if (flags.help) {
    process.stdout.write(PROXY_USAGE);
    return;
  }
  const { upstream, logger } = startUpstreamCommand('proxy', flags);
  const proxy = await startValidationProxy({
    upstream,
    port: portOf('--port', flags.port, 4020),
    host: flags.host,
    contract: flags.contract,
    timeoutMs: flags['timeout-ms'],
    logger,
  });
  logger.info({ url: proxy.url, upstream }, 'shipmock validation proxy listening');
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
