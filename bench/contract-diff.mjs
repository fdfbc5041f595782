#!/usr/bin/env node
// node bench/contract-diff.mjs (after npm run build) — the time budgets of `shipmock contract diff`
// (issue 28): two versions of this project's contract ≤ 1 s, two 20,000-line contracts ≤ 5 s.
// Each is measured as the CLI does it (read, parse, resolve, diff, render text), best and median
// of BENCH_RUNS runs (default 5), wall and CPU time; BENCH_CHECK=1 exits non-zero over a budget.
// The large contract is the real one with its paths and schemas copied under new names until it
// passes 20,000 lines; its new version changes one schema of every copy.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * The contract with its paths and component schemas copied `copies` times under new names
 * (`/copy2/v1/…`, `Address_2`), every `$ref` of a copy pointing into the same copy.
 */
export function replicateContract(document, copies) {
  const out = structuredClone(document);
  const schemas = document.components?.schemas ?? {};
  for (let copy = 2; copy <= copies; copy++) {
    const rename = (value) =>
      JSON.parse(JSON.stringify(value).replace(/"#\/components\/schemas\/([^"]+)"/g, (_, name) => `"#/components/schemas/${name}_${copy}"`).replace(/"operationId":"([^"]+)"/g, (_, id) => `"operationId":"${id}${copy}"`));
    for (const [path, item] of Object.entries(document.paths)) out.paths[`/copy${copy}${path}`] = rename(item);
    for (const [name, schema] of Object.entries(schemas)) out.components.schemas[`${name}_${copy}`] = rename(schema);
  }
  return out;
}

/** A new version of a (replicated) contract: every copy of Address gains a required property. */
export function mutateContract(document) {
  const out = structuredClone(document);
  for (const [name, schema] of Object.entries(out.components.schemas)) {
    if (!/^Address(_\d+)?$/.test(name) || !schema.properties) continue;
    schema.properties.floor = { type: 'string', maxLength: 10 };
    schema.required = [...(schema.required ?? []), 'floor'];
  }
  return out;
}

async function main() {
  const yaml = (await import('js-yaml')).default;
  const { diffInputs } = await import(pathToFileURL(join(root, 'dist/contract-diff/diff.js')).href);
  const { renderReport } = await import(pathToFileURL(join(root, 'dist/contract-diff/render.js')).href);
  const runs = Number(process.env.BENCH_RUNS ?? 5);
  const dir = mkdtempSync(join(tmpdir(), 'shipmock-diff-bench-'));
  const contractPath = join(root, 'contract/openapi.yaml');
  const base = yaml.load(readFileSync(contractPath, 'utf8'), { schema: yaml.CORE_SCHEMA });

  // This project's contract: the previous commit that changed it against the working copy.
  const commits = execFileSync('git', ['log', '--format=%h', '-n', '2', '--', 'contract/openapi.yaml'], { cwd: root, encoding: 'utf8' }).trim().split('\n');
  const previous = join(dir, 'previous.yaml');
  writeFileSync(previous, execFileSync('git', ['show', `${commits[commits.length - 1]}:contract/openapi.yaml`], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));

  let copies = 1;
  let large;
  do large = yaml.dump(replicateContract(base, ++copies), { lineWidth: -1, noRefs: true });
  while (large.split('\n').length < 20_000);
  const largeOld = join(dir, 'large-old.yaml');
  const largeNew = join(dir, 'large-new.yaml');
  writeFileSync(largeOld, large);
  writeFileSync(largeNew, yaml.dump(mutateContract(replicateContract(base, copies)), { lineWidth: -1, noRefs: true }));

  const cases = [
    { name: `this project's contract (${readFileSync(previous, 'utf8').split('\n').length} → ${readFileSync(contractPath, 'utf8').split('\n').length} lines)`, old: previous, new: contractPath, budget: 1000 },
    { name: `two ${large.split('\n').length}-line contracts (${copies} copies)`, old: largeOld, new: largeNew, budget: 5000 },
  ];
  let over = false;
  for (const c of cases) {
    const wall = [];
    const cpu = [];
    let report;
    for (let i = 0; i < runs; i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      report = await diffInputs(c.old, c.new);
      renderReport(report, 'text');
      wall.push(performance.now() - t0);
      const used = process.cpuUsage(c0);
      cpu.push((used.user + used.system) / 1000);
    }
    const sorted = (list) => [...list].sort((a, b) => a - b);
    const median = (list) => sorted(list)[Math.floor(list.length / 2)];
    console.log(`${c.name}: wall best ${sorted(wall)[0].toFixed(0)} ms, median ${median(wall).toFixed(0)} ms; CPU median ${median(cpu).toFixed(0)} ms (budget ${c.budget} ms); ${report.changes.length} changes (${report.summary.breaking} breaking)`);
    if (median(wall) > c.budget) over = true;
  }
  if (process.env.BENCH_CHECK === '1' && over) process.exit(1);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
