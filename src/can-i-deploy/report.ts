import type { CanIDeployReport, InteractionResult } from './check-pacts.js';

export const REPORT_FORMATS = ['text', 'json', 'markdown'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

const operationOf = (r: InteractionResult) =>
  r.operation ? `${r.operation.webhook ? 'webhook ' : ''}${r.operation.method} ${r.operation.path}${r.status !== undefined ? ` → ${r.status}` : ''}` : r.status !== undefined ? `(no operation) → ${r.status}` : '(no operation)';

function byConsumer(report: CanIDeployReport): Map<string, InteractionResult[]> {
  const groups = new Map<string, InteractionResult[]>();
  for (const result of report.results) {
    const list = groups.get(result.consumer) ?? [];
    list.push(result);
    groups.set(result.consumer, list);
  }
  return groups;
}

function summary(report: CanIDeployReport): string {
  const { ok, warning, broken } = report.counts;
  const consumers = new Set(report.results.map((r) => r.consumer));
  const breaks = new Set(report.results.filter((r) => r.verdict === 'broken').map((r) => r.consumer));
  const verdict = report.results.length === 0 ? 'no interactions to check' : breaks.size ? `NO: breaks ${[...breaks].join(', ')}` : 'yes';
  return `can-i-deploy: ${verdict} — ${report.results.length} interactions of ${consumers.size} consumers: ${ok} ok, ${warning} may break, ${broken} broken`;
}

const LABEL = { ok: 'ok', warning: 'may break', broken: 'BROKEN' } as const;

function text(report: CanIDeployReport, verbose: boolean): string {
  const lines: string[] = [];
  for (const [consumer, results] of byConsumer(report)) {
    const broken = results.filter((r) => r.verdict === 'broken').length;
    lines.push(`${consumer} (${results.length} interactions${broken ? `, ${broken} broken` : ''})`);
    // Broken first, with why; what may break after it, its reasons only with --verbose.
    const order = { broken: 0, warning: 1, ok: 2 } as const;
    for (const r of [...results].sort((a, b) => order[a.verdict] - order[b.verdict])) {
      if (r.verdict === 'ok' && !verbose) continue;
      const reasons = r.verdict === 'warning' && !verbose ? ` — ${r.findings.length} reason${r.findings.length === 1 ? '' : 's'} (--verbose)` : '';
      lines.push(`  ${LABEL[r.verdict].padEnd(9)} ${r.interaction} [${operationOf(r)}]${reasons}`);
      for (const f of r.findings) {
        if (f.severity === 'warning' && !verbose) continue;
        lines.push(`      ${f.severity === 'broken' ? '✗' : '!'} ${f.at}: ${f.message}  (${f.pointer})`);
      }
    }
    if (!verbose && results.every((r) => r.verdict === 'ok')) lines.push('  all ok');
  }
  lines.push(summary(report));
  return `${lines.join('\n')}\n`;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function markdown(report: CanIDeployReport): string {
  const lines = [`### ${summary(report).replace(/^can-i-deploy: /, 'Can I deploy? ')}`, ''];
  for (const [consumer, results] of byConsumer(report)) {
    lines.push(`#### ${consumer}`, '', '| | interaction | operation | finding | contract |', '|---|---|---|---|---|');
    for (const r of results) {
      const icon = r.verdict === 'ok' ? '✅' : r.verdict === 'warning' ? '⚠️' : '❌';
      if (r.findings.length === 0) lines.push(`| ${icon} | ${cell(r.interaction)} | \`${cell(operationOf(r))}\` | ok | |`);
      for (const f of r.findings) lines.push(`| ${f.severity === 'broken' ? '❌' : '⚠️'} | ${cell(r.interaction)} | \`${cell(operationOf(r))}\` | ${cell(`${f.at}: ${f.message}`)} | \`${cell(f.pointer)}\` |`);
    }
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The report for people (text: what breaks and may break, per consumer; `verbose` lists the ok
 * ones too), for tools (json: the CanIDeployReport) or for a pull-request comment (markdown).
 *
 * @example process.stdout.write(formatCanIDeploy(report, 'markdown'))
 */
export function formatCanIDeploy(report: CanIDeployReport, format: ReportFormat, verbose = false): string {
  if (format === 'json') return `${JSON.stringify(report, null, 2)}\n`;
  if (format === 'markdown') return markdown(report);
  return text(report, verbose);
}
