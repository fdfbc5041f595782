import { keepRunningWhenOutputCloses } from './closed-output.js';
import cluster from 'node:cluster';
// Each command loads what it runs, when it runs: `contract diff` and `can-i-deploy` need neither
// the server nor Pact (statically imported, they cost every command ~0.5 s of CPU before it began).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { readCredentialsFile } from '../auth/credentials.js';
import { createLogger, LOG_FORMATS, LOG_LEVELS } from '../logging/logger.js';
import { normalizeCorsOrigin } from '../app/steps/cors.js';
import { CONTROL_PLANE_FLAGS, CONTROL_PLANE_USAGE, controlPlaneBanner, controlPlaneOptions } from './control-plane-flags.js';
import { blameEnvironment, withEnvironment } from './environment.js';
import { resolveAdminKey } from './generated-admin-key.js';
import { flagsTakenByNpm, oneOf, parseArgs, portOf, wholeNumberOf, type FlagSpec, type ParsedFlags } from './parse-args.js';
import { checkWorkers, runPrimary, workerNumber } from './workers.js';
import { ON_MISS, type ReplaySetup } from '../replay/on-miss.js';
import { parseByteSize, parseLoginLockout, parsePositiveDuration, parseRateLimit, parseTokenTtls } from './parse-limits.js';

export const SERVE_FLAGS = {
  port: { type: 'number' },
  host: { type: 'string' },
  seed: { type: 'number' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  contract: { type: 'string' },
  unhandled: { type: 'string' },
  stateless: { type: 'boolean' },
  'response-validation': { type: 'string' },
  'company-id': { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  credentials: { type: 'string' },
  'token-secret': { type: 'string' },
  'token-ttl': { type: 'string', repeatable: true },
  'rate-limit': { type: 'string' },
  'address-rate-limit': { type: 'string' },
  'login-lockout': { type: 'string' },
  'headers-timeout': { type: 'string' },
  'request-timeout': { type: 'string' },
  'keep-alive-timeout': { type: 'string' },
  'max-connections': { type: 'number' },
  'max-connections-per-address': { type: 'number' },
  'webhook-hosts': { type: 'string', repeatable: true },
  'cors-origin': { type: 'string', repeatable: true },
  'body-limit': { type: 'string' },
  tls: { type: 'boolean' },
  workers: { type: 'number' },
  ...CONTROL_PLANE_FLAGS,
  cert: { type: 'string' },
  key: { type: 'string' },
  replay: { type: 'string' },
  'on-miss': { type: 'string' },
  upstream: { type: 'string' },
  help: { type: 'boolean' },
} satisfies Record<string, FlagSpec>;

export const USAGE = `Usage: shipmock serve [options]

  --port N                 port to listen on (default 4010; 0 picks a free port)
  --host ADDR              address to bind (default 127.0.0.1)
  --seed N                 seed of generated data (default 1)
  --log-level LEVEL        fatal|error|warn|info|debug|trace|silent (default info)
  --log-format FORMAT      pretty|json (default pretty)
  --contract FILE          OpenAPI 3.1 contract to serve (default: the bundled one)
  --unhandled POLICY       prism|error for operations without a stateful handler (default prism)
  --stateless              contract-only mode: every operation answered from the contract (Prism)
  --response-validation M  error|warn|off (default error)
  --company-id ID          override the default company's id
  --client-id ID           override the default company's client id
  --client-secret SECRET   override the default company's client secret
  --credentials FILE       JSON file of companies, affiliates and admins (fixtures/credentials.json shape)
  --token-secret SECRET    fixed token signing secret (tokens survive a restart)
  --token-ttl LEVEL=DUR    token lifetime of company|account|affiliate|admin, e.g. affiliate=4h (repeatable;
                           defaults company 4h, account 4h, affiliate 15m, admin 1h)
  --rate-limit N/DUR|off   requests per window per credential, e.g. 600/60s (default 6000/60s);
                           off for load tests (the headers stay, with the largest limit)
  --address-rate-limit N/DUR  requests per window per client address without a valid credential
                           (default a tenth of --rate-limit: 600/60s)
  --login-lockout N/DUR    wrong client secrets per client id and address before a 429 lock (default 10/15m)
  --headers-timeout DUR    time a client has to send its request headers (default 10s)
  --request-timeout DUR    time a client has to send its whole request (default 30s)
  --keep-alive-timeout DUR idle time before a keep-alive connection closes (default 5s)
  --max-connections N      open connections at most; more are closed on accept (default 1024)
  --max-connections-per-address N  open connections from one client address at most (default half
                           of --max-connections: 512; loopback clients share one address)
  --body-limit SIZE        largest request body, API and /__admin alike, e.g. 512kb, 32mb (default 1mb;
                           raise it to import a large state over PUT /__admin/state)
  --webhook-hosts LIST     hosts Event Channel webhooks may point at, comma-separated or repeated:
                           host, *.suffix, either with :port (default: any host)
  --cors-origin ORIGIN     a web page origin allowed to use the API from a browser besides pages of
                           this machine (localhost, 127.x, [::1]); repeatable or comma list; * allows
                           every page (default: pages of this machine only)
  --workers N              N processes on one port sharing one store (node:cluster; needs
                           --data postgres://… or a --data FILE they create), so every core serves
                           (default 1)
  --tls                    serve HTTPS with a self-signed certificate generated at start
  --cert FILE --key FILE   serve HTTPS with this PEM certificate and key
  --replay DIR|FILE        answer requests a recording (shipmock record --out DIR, or its scenario
                           file) has answers for with those answers, in recorded order
  --on-miss MODE           mock|fail|proxy: what answers the rest — the stateful mock, a 501
                           replay-miss problem, or --upstream (recorded into DIR) (default mock)
  --upstream URL           the real service --on-miss proxy forwards to
${CONTROL_PLANE_USAGE}
Every flag can also be set by environment: SHIPMOCK_<FLAG> (SHIPMOCK_PORT, SHIPMOCK_ADMIN_KEY, …;
booleans true/false, repeatable flags as a comma list); a flag on the command line wins.
`;

/** `--webhook-hosts a,b --webhook-hosts c` → ['a', 'b', 'c']. */
function splitList(values: string[]): string[] {
  return values.flatMap((value) => value.split(',')).map((entry) => entry.trim()).filter(Boolean);
}

/** --cors-origin values, normalised; a malformed one is an error naming the flag. */
function corsOriginsOf(values: string[]): string[] {
  try {
    return values.map(normalizeCorsOrigin);
  } catch (error) {
    throw new Error(`--cors-origin: ${(error as Error).message}`);
  }
}

/**
 * `npm start --port 4011` (no `--`): npm keeps --port as its own setting and hands shipmock only
 * the bare 4011. Said plainly instead of a mock on the default port.
 */
function checkNothingTakenByNpm(positionals: string[]): void {
  const taken = flagsTakenByNpm(process.env, Object.keys(SERVE_FLAGS));
  const loose = [...positionals];
  if (taken.length > 0) {
    const meant = taken.map(({ flag, value }) => {
      const boolean = SERVE_FLAGS[flag as keyof typeof SERVE_FLAGS].type === 'boolean';
      if (value !== 'true' || boolean) return boolean ? `--${flag}` : `--${flag} ${value}`;
      return `--${flag} ${loose.shift() ?? '…'}`;
    });
    const event = process.env.npm_lifecycle_event;
    // npx takes its own options only before the command name; npm scripts pass flags on after --.
    const remedy = event === 'npx' ? `put shipmock's flags after its name and npx's options before it, as in: npx shipmock ${meant.join(' ')}` : `put shipmock's flags after --, as in: ${event === 'start' ? 'npm start' : `npm run ${event}`} -- ${meant.join(' ')}`;
    throw new Error(
      `npm kept ${taken.map(({ flag }) => `--${flag}`).join(', ')} for itself (it set ${taken.map(({ flag }) => `npm_config_${flag.replace(/-/g, '_')}`).join(', ')} instead of passing ${taken.length > 1 ? 'them' : 'it'} on): ${remedy}`,
    );
  }
  if (positionals.length > 0) throw new Error(`unexpected argument ${positionals[0]}: shipmock serve takes only flags (see shipmock serve --help)`);
}

/** Files and folders named by flags, checked before anything starts so that the error names the flag, not just an ENOENT. */
function checkPaths(flags: { contract?: string; credentials?: string; cert?: string; key?: string; data?: string; 'state-file'?: string }): void {
  for (const flag of ['contract', 'credentials', 'cert', 'key'] as const) {
    const file = flags[flag];
    if (file !== undefined && !existsSync(file)) throw new Error(`--${flag} ${file}: no such file (${resolve(file)})`);
  }
  for (const flag of ['data', 'state-file'] as const) {
    const file = flags[flag];
    if (file === undefined || /^postgres(ql)?:\/\//i.test(file)) continue;
    const folder = dirname(resolve(file));
    if (!existsSync(folder)) throw new Error(`--${flag} ${file}: the folder ${folder} does not exist; create it first (mkdir -p ${folder}) or name a file in an existing folder`);
  }
}

/** --replay, --on-miss and --upstream, checked together: each of the latter two means nothing without the one before. */
function replayOf(flags: { replay?: string; 'on-miss'?: string; upstream?: string }): ReplaySetup | undefined {
  const onMiss = oneOf('--on-miss', flags['on-miss'], ON_MISS);
  if (!flags.replay) {
    if (onMiss) throw new Error('--on-miss needs --replay DIR|FILE (the recording whose misses it decides)');
    if (flags.upstream) throw new Error('--upstream needs --replay DIR --on-miss proxy (serve forwards only the requests a recording has no answer for)');
    return undefined;
  }
  if (onMiss === 'proxy' && !flags.upstream) throw new Error('--on-miss proxy needs --upstream URL (the real service that answers what the recording lacks)');
  if (onMiss !== 'proxy' && flags.upstream) throw new Error('--upstream is only used with --on-miss proxy');
  // --on-miss proxy may start from an empty folder: what it forwards is recorded there.
  if (onMiss !== 'proxy' && !existsSync(flags.replay)) throw new Error(`--replay ${flags.replay}: no such folder or file (${resolve(flags.replay)}); record one first: shipmock record --upstream URL --out ${flags.replay}`);
  return { from: flags.replay, onMiss, upstream: flags.upstream };
}

/** Node's EADDRINUSE in the CLI's words: which flag picks another port. */
function portInUse(error: unknown, port: number, host: string | undefined): never {
  if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    throw new Error(`port ${port} on ${host ?? '127.0.0.1'} is already in use (another shipmock still running?): stop that process, or pick another port with --port N (--port 0 picks a free one)`);
  }
  throw error;
}

async function serve(argv: string[]): Promise<void> {
  const { flags: commandLine, positionals } = parseArgs(argv, SERVE_FLAGS);
  if (commandLine.help) {
    process.stdout.write(USAGE);
    return;
  }
  checkNothingTakenByNpm(positionals);
  const { flags, fromEnvironment, warnings } = withEnvironment(commandLine, SERVE_FLAGS, process.env);
  try {
    await serveWith(flags, cluster.isPrimary ? warnings : []);
  } catch (error) {
    throw blameEnvironment(error, fromEnvironment);
  }
}

async function serveWith(parsed: ParsedFlags<typeof SERVE_FLAGS>, warnings: string[]): Promise<void> {
  keepRunningWhenOutputCloses();
  checkPaths(parsed);
  const { adminKey, generated: adminKeyGenerated } = resolveAdminKey(parsed['admin-key']);
  const flags = { ...parsed, 'admin-key': adminKey };
  const logFormat = oneOf('--log-format', flags['log-format'], LOG_FORMATS) ?? 'pretty';
  const logLevel = oneOf('--log-level', flags['log-level'], LOG_LEVELS) ?? 'info';
  const logger = createLogger({ level: logLevel, format: logFormat });
  for (const warning of warnings) logger.warn(warning);
  const controlPlane = controlPlaneOptions(flags);
  const workers = flags.workers ?? 1;
  checkWorkers(workers, controlPlane.data);
  const replay = replayOf(flags);
  if (replay?.onMiss === 'proxy' && workers > 1) throw new Error('--on-miss proxy records into one folder, which one process writes at a time: use it without --workers');
  if (workers > 1 && cluster.isPrimary) {
    process.exit(await runPrimary(workers, (line) => logger.warn(line)));
  }
  const worker = workerNumber();
  const port = portOf('--port', flags.port, 4010);
  const { startMock } = await import('../server/start-mock.js');
  const mock = await startMock({
    port,
    host: flags.host,
    seed: wholeNumberOf('--seed', flags.seed),
    contract: flags.contract,
    unhandled: oneOf('--unhandled', flags.unhandled, ['prism', 'error']),
    stateful: flags.stateless ? false : undefined,
    responseValidation: oneOf('--response-validation', flags['response-validation'], ['error', 'warn', 'off']),
    companyId: flags['company-id'],
    clientId: flags['client-id'],
    clientSecret: flags['client-secret'],
    credentials: flags.credentials ? readCredentialsFile(flags.credentials) : undefined,
    tokenSecret: flags['token-secret'],
    tokenLifetimes: flags['token-ttl'] ? parseTokenTtls(flags['token-ttl']) : undefined,
    rateLimit: flags['rate-limit'] ? parseRateLimit(flags['rate-limit']) : undefined,
    addressRateLimit: flags['address-rate-limit'] ? parseRateLimit(flags['address-rate-limit'], '--address-rate-limit') : undefined,
    loginLockout: flags['login-lockout'] ? parseLoginLockout(flags['login-lockout']) : undefined,
    connections: {
      headersTimeoutMs: flags['headers-timeout'] ? parsePositiveDuration(flags['headers-timeout']) : undefined,
      requestTimeoutMs: flags['request-timeout'] ? parsePositiveDuration(flags['request-timeout']) : undefined,
      keepAliveTimeoutMs: flags['keep-alive-timeout'] ? parsePositiveDuration(flags['keep-alive-timeout']) : undefined,
      maxConnections: wholeNumberOf('--max-connections', flags['max-connections'], { min: 1 }),
      maxConnectionsPerAddress: wholeNumberOf('--max-connections-per-address', flags['max-connections-per-address'], { min: 1 }),
    },
    bodyLimit: flags['body-limit'] ? parseByteSize(flags['body-limit'], '--body-limit') : undefined,
    webhooks: flags['webhook-hosts'] ? { allowedHosts: splitList(flags['webhook-hosts']) } : undefined,
    corsOrigins: flags['cors-origin'] ? corsOriginsOf(splitList(flags['cors-origin'])) : undefined,
    tls: flags.tls,
    sharedData: workers > 1,
    cert: flags.cert,
    key: flags.key,
    replay,
    ...controlPlane,
    logger,
  }).catch((error: unknown) => portInUse(error, port, flags.host));
  // Before the banner: whoever waits for it (a test, a script) may send SIGTERM the moment it appears.
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    mock.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  const c = mock.credentials;
  const banner = controlPlaneBanner({
    host: mock.host,
    adminKey: controlPlane.adminKey,
    adminKeyGenerated,
    adminOrigins: controlPlane.adminOrigins,
    clockMode: mock.clock.mode,
    scenarios: mock.scenarios.list().map((s) => s.name),
    stateFile: controlPlane.stateFile,
    data: controlPlane.data,
  });
  if (worker !== undefined && worker > 1) {
    logger.info({ worker, pid: process.pid }, 'worker listening');
  } else if (logFormat === 'json') {
    logger.info({ url: mock.url, inspector: `${mock.url}/__admin/ui/`, docs: `${mock.url}/docs/`, companyId: c.companyId, clientId: c.clientId, clientSecret: c.clientSecret }, 'shipmock listening');
    logger.info({ controlPlane: banner.map((line) => line.trim().replace(/\s{2,}/, ': ')) }, 'shipmock control plane');
  } else {
    process.stdout.write(
      [
        `shipmock listening on ${mock.url}`,
        `  inspector      ${mock.url}/__admin/ui/`,
        `  API reference  ${mock.url}/docs/`,
        `  company id     ${c.companyId}`,
        `  client id      ${c.clientId}`,
        `  client secret  ${c.clientSecret}`,
        ...banner,
        ...(flags['cors-origin'] ? [`  cors origins   pages of this machine, ${splitList(flags['cors-origin']).join(', ')} (browser pages allowed on the API)`] : []),
        ...(mock.replay ? [`  replay         ${flags.replay} (${mock.replay.index.size} recorded exchange(s); a miss goes to ${mock.replay.onMiss === 'mock' ? 'the mock' : mock.replay.onMiss === 'fail' ? 'a 501 replay-miss problem' : flags.upstream})`] : []),
        ...(worker !== undefined ? [`  workers        ${workers} processes (node:cluster) on this port, one shared store`] : []),
        `  company token  curl ${mock.url.startsWith('https:') ? '-k ' : ''}-X POST ${mock.url}/v1/companies/${c.companyId}/tokens -u ${c.clientId}:${c.clientSecret} -H 'Content-Type: application/json' -d '{"grantType":"client_credentials"}'`,
        '',
      ].join('\n'),
    );
  }
}

/** The installed package's version (package.json beside dist/ and src/). */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
    case undefined:
      return serve(rest);
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(`${USAGE}
Other commands: shipmock verify (pacts against a provider), shipmock proxy (validating proxy), shipmock record (record the real service for --replay), shipmock compare (the mock against the real service), shipmock contract diff (what a contract change breaks), shipmock can-i-deploy (pacts against a new contract), shipmock scenario from-har (a HAR file as a recorded scenario); --help on each.
`);
      return;
    // Contract testing (src/verify, src/proxy).
    case 'verify':
      return (await import('./verify-command.js')).verifyCommand(rest);
    case 'proxy':
      return (await import('./proxy-command.js')).proxyCommand(rest);
    case 'compare':
      return (await import('./compare-command.js')).compareCommand(rest);
    case 'record':
      return (await import('./record-command.js')).recordCommand(rest);
    case 'can-i-deploy':
      return (await import('./can-i-deploy-command.js')).canIDeployCommand(rest);
    case 'contract':
      return (await import('./contract-command.js')).contractCommand(rest);
    case 'scenario':
      return (await import('./scenario-command.js')).scenarioCommand(rest);
    case '--version':
    case '-v':
    case 'version':
      process.stdout.write(`shipmock ${packageVersion()}\n`);
      return;
    default:
      // `shipmock --port 4011`: serve is the default command, flags and all.
      if (command.startsWith('-')) return serve(argv);
      throw new Error(`unknown command ${command}; commands: serve, verify, proxy, record, compare, contract, can-i-deploy, scenario (try: shipmock serve --help)`);
  }
}
