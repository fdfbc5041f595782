import type { ContractChange, DiffReport } from './diff.js';
import { CHANGE_CLASSES, type ChangeClass } from './rules.js';

export type DiffFormat = 'text' | 'json' | 'markdown';
export const DIFF_FORMATS: readonly DiffFormat[] = ['text', 'json', 'markdown'];

const TITLES: Record<ChangeClass, string> = { breaking: 'Breaking', 'may-break': 'May break', safe: 'Safe' };

/** The JSON output's shape version; raised only when a field changes meaning or goes away. */
export const JSON_FORMAT_VERSION = 1;

/**
 * Renders a diff report for people (text, grouped by class and operation), tools (JSON, the
 * shape documented in docs/contract-diff.md) or a pull-request comment (Markdown).
 * @example process.stdout.write(renderReport(report, 'markdown'))
 */
export function renderReport(report: DiffReport, format: DiffFormat): string {
  if (format === 'json') return `${JSON.stringify({ formatVersion: JSON_FORMAT_VERSION, old: report.old, new: report.new, summary: report.summary, changes: report.changes }, null, 2)}\n`;
  if (format === 'markdown') return renderMarkdown(report);
  return renderText(report);
}

function summaryLine(report: DiffReport): string {
  const { summary } = report;
  return `${summary.breaking} breaking, ${summary['may-break']} may break, ${summary.safe} safe`;
}

const operationName = (change: ContractChange) => (change.operation ? `${change.location === 'webhook' ? 'webhook ' : ''}${change.operation.method} ${change.operation.path}` : 'whole contract');
const place = (change: ContractChange) => (change.schemaPath ? `${change.where} › ${change.schemaPath}` : change.where);
const pointerOf = ({ pointer }: ContractChange) =>
  [pointer.old && pointer.old !== pointer.new ? `old ${pointer.old}` : '', pointer.new ? `new ${pointer.new}` : ''].filter(Boolean).join('  ');
const overridden = (change: ContractChange) => (change.class !== change.ruleClass ? ` (${change.ruleClass} by default; set by the rules file)` : '');

function renderText(report: DiffReport): string {
  const lines = [`Contract diff: ${report.old} → ${report.new}`, summaryLine(report)];
  if (report.changes.length === 0) lines.push('', 'No changes a client could notice.');
  for (const changeClass of CHANGE_CLASSES) {
    const changes = report.changes.filter((c) => c.class === changeClass);
    if (!changes.length) continue;
    lines.push('', `${TITLES[changeClass].toUpperCase()} (${changes.length})`);
    let current = '';
    for (const change of changes) {
      const name = operationName(change);
      if (name !== current) {
        lines.push(`  ${name}`);
        current = name;
      }
      lines.push(`    ${place(change)}: ${change.reason} [${change.rule}]${overridden(change)}`);
      const pointer = pointerOf(change);
      if (pointer) lines.push(`      ${pointer}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

const cell = (value: string) => value.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (value: string) => `\`${value.replace(/`/g, "'")}\``;

function renderMarkdown(report: DiffReport): string {
  const { summary } = report;
  const verdict = summary.breaking ? '**breaking changes**' : summary['may-break'] ? '**changes that may break clients**' : 'no breaking changes';
  const lines = [`### Contract diff: ${verdict}`, '', `${code(report.old)} → ${code(report.new)}: ${summaryLine(report)}.`];
  for (const changeClass of CHANGE_CLASSES) {
    const changes = report.changes.filter((c) => c.class === changeClass);
    if (!changes.length) continue;
    const table = ['| Operation | Where | Change | Rule |', '|---|---|---|---|', ...changes.map((c) => `| ${code(operationName(c))} | ${cell(c.where)}${c.schemaPath ? ` › ${code(c.schemaPath)}` : ''} | ${cell(c.reason)}${cell(overridden(c))} | ${code(c.rule)} |`)];
    if (changeClass === 'safe') lines.push('', `<details><summary>${TITLES[changeClass]} (${changes.length})</summary>`, '', ...table, '', '</details>');
    else lines.push('', `#### ${TITLES[changeClass]} (${changes.length})`, '', ...table);
  }
  return `${lines.join('\n')}\n`;
}
