import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fetchPactsFromBroker } from '../can-i-deploy/broker.js';
import { checkPactsAgainstContract } from '../can-i-deploy/check-pacts.js';
import { readContract } from '../can-i-deploy/read-contract.js';
import { formatImpact, impactOfChanges } from '../can-i-deploy/impact.js';
import { formatCanIDeploy, REPORT_FORMATS } from '../can-i-deploy/report.js';
import { diffInputs } from '../contract-diff/diff.js';
import { readPactFiles, type PactFile } from '../verify/pact-files.js';
import { DEFAULT_PROVIDER } from '../verify/run-verification.js';
import { oneOf, parseArgs, type FlagSpec } from './parse-args.js';

const FLAGS = {
  contract: { type: 'string' },
  base: { type: 'string' },
  pacts: { type: 'string', repeatable: true },
  broker: { type: 'string' },
  'broker-token': { type: 'string' },
  provider: { type: 'string' },
  format: { type: 'string' },
  'fail-on': { type: 'string' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean' },
} satisfies Record<string, FlagSpec>;

export const CAN_I_DEPLOY_USAGE = `Usage: shipmock can-i-deploy --contract FILE (--pacts DIR|FILE ... | --broker URL) [options]

Checks every consumer interaction in the pacts against a (new) contract, without a running
provider: each request a consumer sends must be valid for the contract, and each response or
webhook message it expects — read through its Pact matchers — must be one the contract can
produce. Prints a verdict per consumer and interaction, with the reason and the contract path.

  --contract FILE        the OpenAPI 3.1 contract to deploy (YAML or JSON)
  --base OLD             the contract deployed today (a file, a mock's URL or git:REV:PATH):
                         adds what changed from it and whom each change reaches — "this change
                         breaks A and B at these interactions; C is unaffected"
  --pacts PATH           pact files or directories of them, repeatable
  --broker URL           take the latest pact of every consumer from a Pact Broker instead
                         (env PACT_BROKER_BASE_URL)
  --broker-token TOKEN   bearer token for the broker             (env PACT_BROKER_TOKEN)
  --provider NAME        provider whose pacts to check (default with --broker: ${DEFAULT_PROVIDER};
                         with --pacts: every pact given)
  --format FORMAT        text|json|markdown (default text)
  --fail-on LEVEL        broken|warning: what fails the gate (default broken; warning also
                         fails on "may break", e.g. a field the consumer reads that is optional)
  --verbose              text: list the interactions that are ok too

Exit status: 0 deployable, 1 an interaction is broken (or may break, with --fail-on warning),
2 bad usage or unreadable input (contract, pacts, broker).
`;

/** `shipmock can-i-deploy`: checks pacts against a contract, prints the report, sets the exit code. */
export async function canIDeployCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { flags, positionals } = parseArgs(argv, FLAGS);
  if (flags.help) {
    process.stdout.write(CAN_I_DEPLOY_USAGE);
    return;
  }
  if (positionals.length) throw new Error(`unexpected argument ${positionals[0]} (see shipmock can-i-deploy --help)`);
  const format = oneOf('--format', flags.format, REPORT_FORMATS) ?? 'text';
  const failOn = oneOf('--fail-on', flags['fail-on'], ['broken', 'warning']) ?? 'broken';
  if (!flags.contract) throw new Error('shipmock can-i-deploy needs --contract FILE (see --help)');
  const broker = flags.broker ?? (flags.pacts ? undefined : env.PACT_BROKER_BASE_URL || undefined);
  if (flags.pacts && flags.broker) throw new Error('give --pacts or --broker, not both');
  if (!flags.pacts && !broker) throw new Error('shipmock can-i-deploy needs --pacts DIR or --broker URL (see --help)');
  if (!existsSync(flags.contract)) throw new Error(`--contract: no such file ${flags.contract}`);
  if (broker) {
    try {
      new URL(broker);
    } catch {
      throw new Error(`--broker is not a URL: ${broker}`);
    }
  }

  let pacts: PactFile[];
  if (broker) {
    pacts = await fetchPactsFromBroker({ url: broker, provider: flags.provider ?? DEFAULT_PROVIDER, token: flags['broker-token'] ?? (env.PACT_BROKER_TOKEN || undefined) });
  } else {
    for (const path of flags.pacts!) if (!existsSync(path)) throw new Error(`--pacts: no such file or directory ${path}`);
    // File by file, so that a broken pact is named.
    const files = flags.pacts!.flatMap((path) => (statSync(path).isDirectory() ? readdirSync(path).filter((name) => name.endsWith('.json')).sort().map((name) => join(path, name)) : [path]));
    pacts = files.flatMap((file) => {
      try {
        return readPactFiles([file], flags.provider);
      } catch (error) {
        throw new Error(`--pacts: ${file} is not a pact file: ${(error as Error).message}`);
      }
    });
  }
  if (pacts.length === 0) throw new Error(`no pacts found${flags.provider ? ` for provider ${flags.provider}` : ''} in ${broker ?? flags.pacts!.join(', ')}`);
  // The pacts first: an unreachable broker fails before the contract is parsed.
  let contract;
  try {
    contract = readContract(flags.contract);
  } catch (error) {
    throw new Error(`--contract ${flags.contract}: ${(error as Error).message}`);
  }

  const report = checkPactsAgainstContract(contract, pacts);
  if (flags.base) {
    let diff;
    try {
      diff = await diffInputs(flags.base, flags.contract);
    } catch (error) {
      throw new Error(`--base ${flags.base}: ${(error as Error).message}`);
    }
    const impact = impactOfChanges(diff, report);
    if (format === 'json') process.stdout.write(`${JSON.stringify({ ...report, impact }, null, 2)}\n`);
    else process.stdout.write(`${formatCanIDeploy(report, format, flags.verbose)}\n${formatImpact(impact, format)}`);
  } else {
    process.stdout.write(formatCanIDeploy(report, format, flags.verbose));
  }
  const failed = report.counts.broken > 0 || (failOn === 'warning' && report.counts.warning > 0);
  process.exitCode = failed ? 1 : 0;
}
