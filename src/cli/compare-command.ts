import { formatDriftSummary, startCompareProxy } from '../proxy/compare/compare-proxy.js';
import { parsePathPattern } from '../proxy/compare/json-path.js';
import { resolveAdminKey } from './generated-admin-key.js';
import { parseArgs, portOf, wholeNumberOf, type FlagSpec } from './parse-args.js';
import { LOG_FLAG_LINES, startUpstreamCommand, UPSTREAM_FLAGS } from './upstream-command.js';

const COMPARE_FLAGS = {
  ...UPSTREAM_FLAGS,
  'mock-port': { type: 'number' },
  seed: { type: 'number' },
  ignore: { type: 'string', repeatable: true },
  'fail-on-drift': { type: 'boolean' },
  'drift-size': { type: 'number' },
  data: { type: 'string' },
  'admin-key': { type: 'string' },
} satisfies Record<string, FlagSpec>;

export const COMPARE_USAGE = `Usage: shipmock compare --upstream URL [options]

Is the mock still true to the real service? Point a client at this proxy: every request goes to
the real service (whose answer the client gets) and to a mock started alongside, with the real
service's ids and tokens translated to the mock's (learned from create and token answers). The
differences in status, the headers that matter and the JSON body fields are recorded per request
(GET /__admin/drift, the inspector's Drift tab: /__admin on this port is the mock's); ids, timestamps, tokens, tracking
numbers and --ignore paths differ only by presence or type. A summary is printed at exit
(Ctrl-C / SIGTERM).

  --upstream URL           the real service (its path prefix is kept)
  --port N                 port of the compare proxy (default 4030; 0 picks a free port)
  --host ADDR              address to bind both (default 127.0.0.1)
  --mock-port N            port of the mock (default 0: a free port, printed at start)
  --seed N                 seed of the mock's generated data (default 1)
  --ignore PATH            a JSON path whose values are volatile too, e.g. '$.items[*].createdAt',
                           '$..reference' (repeatable)
  --fail-on-drift          exit with status 1 if any request drifted (for CI)
  --drift-size N           drift records kept by the mock, oldest dropped first (default 1000)
  --timeout-ms N           timeout of each side, answered 502 after it (default 30000)
  --contract FILE          OpenAPI 3.1 contract (default: the bundled one)
  --data FILE              keep the mock's state and the drift records in this SQLite file
                           (not a PostgreSQL URL: the compare mock is one process)
  --admin-key KEY          the mock's control plane requires X-Admin-Key: KEY
${LOG_FLAG_LINES}`;

/** `shipmock compare`: runs until SIGINT/SIGTERM, then prints the summary. */
export async function compareCommand(argv: string[]): Promise<void> {
  const { flags, positionals } = parseArgs(argv, COMPARE_FLAGS);
  if (flags.help) {
    process.stdout.write(COMPARE_USAGE);
    return;
  }
  const { upstream, logger } = startUpstreamCommand('compare', flags, positionals);
  // A shared database is written in batches across processes; the drift records of one compare run are this process's alone.
  if (flags.data && /^postgres(ql)?:\/\//i.test(flags.data)) throw new Error('--data: shipmock compare keeps its mock in one process; name a SQLite file (or leave --data out), not a PostgreSQL database');
  const ignore = flags.ignore ?? [];
  for (const path of ignore) parsePathPattern(path);
  const size = flags['drift-size'];
  if (size !== undefined && (!Number.isInteger(size) || size < 1 || size > 1_000_000)) throw new Error('--drift-size must be an integer from 1 to 1000000');
  const { adminKey } = resolveAdminKey(flags['admin-key']);

  const { startMock } = await import('../server/start-mock.js');
  const mock = await startMock({ port: portOf('--mock-port', flags['mock-port'], 0), host: flags.host, seed: wholeNumberOf('--seed', flags.seed), contract: flags.contract, data: flags.data, adminKey, logger });
  const { driftLogOf } = await import('../server/drift-log-of.js');
  const drift = driftLogOf(mock, size);
  const compare = await startCompareProxy({
    upstream,
    mock: { url: mock.url, credentials: mock.credentials },
    drift,
    ignore,
    contract: flags.contract,
    port: portOf('--port', flags.port, 4030),
    host: flags.host,
    timeoutMs: flags['timeout-ms'],
    logger,
  }).catch(async (error: unknown) => {
    await mock.close();
    throw error;
  });

  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    const summary = compare.summary();
    process.stdout.write(formatDriftSummary(summary));
    Promise.all([compare.close(), mock.close()]).then(
      () => process.exit(flags['fail-on-drift'] && summary.drifted > 0 ? 1 : 0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  process.stdout.write(
    [
      `shipmock compare listening on ${compare.url}`,
      `  real service   ${upstream}`,
      `  mock           ${mock.url} (seed ${flags.seed ?? 1})`,
      `  drift report   ${compare.url}/__admin/drift   (/__admin here is the mock's control plane)`,
      `  inspector      ${compare.url}/__admin/ui/#drift`,
      ...(ignore.length ? [`  ignored paths  ${ignore.join(' ')}`] : []),
      '',
    ].join('\n'),
  );
}
