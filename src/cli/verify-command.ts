import { existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { networkCause } from '../verify/reachability.js';
import { formatReport } from '../verify/report.js';
import { DEFAULT_PROVIDER, verifyProvider, type VerifyProviderOptions } from '../verify/run-verification.js';
import { realTargetControl, shipmockControl } from '../verify/targets.js';
import { parseArgs, portOf, type FlagSpec } from './parse-args.js';

const VERIFY_FLAGS = {
  'base-url': { type: 'string' },
  'company-id': { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  'pact-dir': { type: 'string', repeatable: true },
  provider: { type: 'string' },
  'broker-url': { type: 'string' },
  'broker-token': { type: 'string' },
  publish: { type: 'boolean' },
  'provider-version': { type: 'string' },
  'provider-branch': { type: 'string' },
  shipmock: { type: 'boolean' },
  'admin-key': { type: 'string' },
  'webhook-port': { type: 'number' },
  'webhook-public-url': { type: 'string' },
  json: { type: 'string' },
  'log-level': { type: 'string' },
  help: { type: 'boolean' },
} satisfies Record<string, FlagSpec>;

export const VERIFY_USAGE = `Usage: shipmock verify --base-url URL --company-id ID --client-id ID --client-secret SECRET [options]

Verifies the consumer pacts against a Shipping Platform API implementation. Provider states are
set up through the public API only (a fresh account per interaction, deleted afterwards);
states that need a control plane (token expiry, an exhausted rate limit, tracker time travel)
are skipped and listed with the reason.

  --base-url URL            the provider under test            (env SHIPMOCK_VERIFY_BASE_URL)
  --company-id ID           test company id                     (env SHIPMOCK_VERIFY_COMPANY_ID)
  --client-id ID            its client id                       (env SHIPMOCK_VERIFY_CLIENT_ID)
  --client-secret SECRET    its client secret                   (env SHIPMOCK_VERIFY_CLIENT_SECRET)
  --pact-dir DIR            pact files or directories, repeatable (default ./pacts, else the bundled pacts)
  --provider NAME           provider name in the pacts (default ${DEFAULT_PROVIDER})
  --shipmock                the target is shipmock: also use its control API (/__admin clock and
                            scenarios), so no state is skipped
  --admin-key KEY           X-Admin-Key of that control API (when started with --admin-key)
  --webhook-port N          port of the local webhook inbox for message pacts (default: a free port)
  --webhook-public-url URL  URL the provider can reach the inbox at (tunnel); without it message
                            pacts are verified only against a local provider
  --json FILE               also write the report as JSON
  --log-level LEVEL         Pact log level: error|warn|info|debug|trace (default error)
Broker (optional; pacts then come from the broker instead of --pact-dir):
  --broker-url URL          Pact Broker / PactFlow base URL      (env PACT_BROKER_BASE_URL)
  --broker-token TOKEN      bearer token                         (env PACT_BROKER_TOKEN)
  --publish                 publish the verification results (needs --provider-version)
  --provider-version V      provider version the results are recorded for (e.g. a git sha)
  --provider-branch B       provider branch recorded with the version

Exit status: 0 when nothing failed (skips allowed), 1 when an interaction failed, 2 on bad usage
or when the provider or the broker cannot be reached (one line naming the URL and the cause).
`;

const BUNDLED_PACTS = fileURLToPath(new URL('../../pacts', import.meta.url));

const VERIFY_LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;
type VerifyLogLevel = (typeof VERIFY_LOG_LEVELS)[number];

/** Reads flags, then the SHIPMOCK_VERIFY_* / PACT_BROKER_* environment, into verifier options. */
export function readVerifyOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): { options: VerifyProviderOptions; json?: string } | { help: true } {
  const { flags } = parseArgs(argv, VERIFY_FLAGS);
  if (flags.help) return { help: true };
  const pick = (flag: 'base-url' | 'company-id' | 'client-id' | 'client-secret' | 'provider' | 'broker-url' | 'broker-token' | 'provider-version' | 'provider-branch' | 'webhook-public-url', variable: string): string | undefined =>
    flags[flag] ?? (env[variable] || undefined);
  const baseUrl = pick('base-url', 'SHIPMOCK_VERIFY_BASE_URL');
  const companyId = pick('company-id', 'SHIPMOCK_VERIFY_COMPANY_ID');
  const clientId = pick('client-id', 'SHIPMOCK_VERIFY_CLIENT_ID');
  const clientSecret = pick('client-secret', 'SHIPMOCK_VERIFY_CLIENT_SECRET');
  const missing = [
    ['--base-url', baseUrl],
    ['--company-id', companyId],
    ['--client-id', clientId],
    ['--client-secret', clientSecret],
  ].filter(([, value]) => !value).map(([name]) => name);
  if (missing.length) throw new Error(`shipmock verify needs ${missing.join(', ')} (or the SHIPMOCK_VERIFY_* environment variables); see --help`);
  try {
    new URL(baseUrl!);
  } catch {
    throw new Error(`--base-url is not a URL: ${baseUrl}`);
  }
  const webhookPublicUrl: string | undefined = flags['webhook-public-url'];
  const pactDirs: string[] | undefined = flags['pact-dir'];
  const logLevel = flags['log-level'] ?? 'error';
  if (!VERIFY_LOG_LEVELS.includes(logLevel as VerifyLogLevel)) throw new Error(`--log-level must be error, warn, info, debug or trace`);
  return {
    json: flags.json,
    options: {
      baseUrl: baseUrl!,
      access: { companyId: companyId!, clientId: clientId!, clientSecret: clientSecret! },
      control: flags.shipmock ? shipmockControl(baseUrl!, { adminKey: flags['admin-key'] }) : realTargetControl({ baseUrl: baseUrl!, webhookPublicUrl }),
      pacts: pactDirs ?? [existsSync('pacts') ? 'pacts' : BUNDLED_PACTS],
      provider: flags.provider,
      broker: {
        brokerUrl: pick('broker-url', 'PACT_BROKER_BASE_URL'),
        brokerToken: pick('broker-token', 'PACT_BROKER_TOKEN'),
        publish: Boolean(flags.publish),
        providerVersion: flags['provider-version'],
        providerBranch: flags['provider-branch'],
      },
      webhook: { port: portOf('--webhook-port', flags['webhook-port']), publicUrl: webhookPublicUrl },
      logLevel: logLevel as VerifyLogLevel,
    },
  };
}

/** `shipmock verify`: runs the verification, prints the report, sets the exit code. */
export async function verifyCommand(argv: string[]): Promise<void> {
  const read = readVerifyOptions(argv);
  if ('help' in read) {
    process.stdout.write(VERIFY_USAGE);
    return;
  }
  // The Pact verifier's proxy throws a provider's network error out of its own callback (an
  // uncaught ENOTFOUND and a thousand lines of stack traces); a provider that goes away while
  // the run is under way is told in one line, like one that is not there at the start. (The
  // exit can still wait for the Pact core's own retries to end: its native threads are joined.)
  const lost = (error: unknown) => {
    const cause = networkCause(error);
    process.stderr.write(cause ? `shipmock: lost the provider at ${read.options.baseUrl}: ${cause}\n` : `shipmock: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(cause ? 2 : 1);
  };
  process.on('uncaughtException', lost);
  let report: Awaited<ReturnType<typeof verifyProvider>>;
  try {
    report = await verifyProvider(read.options);
  } finally {
    process.off('uncaughtException', lost);
  }
  process.stdout.write(formatReport(report));
  if (read.json) writeFileSync(read.json, `${JSON.stringify(report, null, 2)}\n`);
  process.exitCode = report.ok ? 0 : 1;
}
