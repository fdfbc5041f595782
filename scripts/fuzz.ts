/**
 * The contract fuzzer on a long budget against a real server (a child process started from
 * this checkout's sources, or from dist with --dist):
 *
 *   npm run fuzz -- --requests 100000 [--seed N] [--dist] [--minutes M]
 *
 * Prints progress, then a summary (requests, by status class, 5xx and contract violations found
 * with a curl reproduction each, seed, duration). Exit code 1 when anything was found. The same
 * seed against a fresh server sends the same requests (they run one at a time).
 */
import { loadCompiledContract } from '../src/contract/compiled-contract.js';
import { createValidators } from '../src/contract/validators.js';
import { formatReport, runFuzz } from '../test/reliability/fuzz/fuzzer.js';
import { startProcessTarget } from '../test/reliability/fuzz/targets.js';

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}
const requests = Number(flag('requests') ?? 100_000);
const seed = flag('seed') !== undefined ? Number(flag('seed')) : Math.floor(Math.random() * 2 ** 31);
const minutes = flag('minutes') !== undefined ? Number(flag('minutes')) : undefined;
if (!Number.isInteger(requests) || requests < 1 || !Number.isInteger(seed) || (minutes !== undefined && !(minutes > 0))) {
  process.stderr.write('usage: npm run fuzz -- [--requests N] [--seed N] [--minutes M] [--dist]\n');
  process.exit(2);
}

const { contract, schemas } = loadCompiledContract();
const validators = createValidators(contract, schemas);
const started = await startProcessTarget(1, { fromDist: process.argv.includes('--dist') });
process.stdout.write(`fuzzing ${started.target.baseUrl} (pid ${started.pid}): ${requests} requests, seed ${seed} (--seed ${seed} to repeat)\n`);
let exitCode = 0;
try {
  const report = await runFuzz({
    contract,
    validators,
    target: started.target,
    seed,
    requests,
    timeLimitMs: minutes === undefined ? undefined : minutes * 60_000,
    stateCheckRate: 0.02,
    batchSize: 1000,
    onProgress: (r) => {
      if (r.requests % 10_000 < 1000) {
        process.stdout.write(`  ${r.requests} requests, ${(r.durationMs / 1000).toFixed(0)} s, ${r.findings.length} distinct findings\n`);
      }
    },
  });
  process.stdout.write(`${formatReport(report, started.target.baseUrl)}\n`);
  if (report.findings.length) exitCode = 1;
} finally {
  await started.close();
}
process.exit(exitCode);
