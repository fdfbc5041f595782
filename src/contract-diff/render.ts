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

/** Changes with the same rule, reason and pointers: one component change seen from many operations. */
interface ChangeGroup {
  first: ContractChange;
  changes: ContractChange[];
}

function groupChanges(changes: ContractChange[]): ChangeGroup[] {
  const groups = new Map<string, ChangeGroup>();
  for (const change of changes) {
    const key = JSON.stringify([change.rule, change.reason, change.pointer.old, change.pointer.new, change.class]);
    const group = groups.get(key);
    if (group) group.changes.push(change);
    else groups.set(key, { first: change, changes: [change] });
  }
  return [...groups.values()];
}

/** How many operations a text or Markdown entry lists before "and N more". */
const LISTED_OPERATIONS = 5;

const occurrence = (change: ContractChange) => `${operationName(change)} · ${place(change)}`;

function countLine(changeClass: ChangeClass, changes: ContractChange[], groups: ChangeGroup[], upper = false): string {
  const places = groups.length === changes.length ? '' : ` at ${groups.length} ${groups.length === 1 ? 'place' : 'places'}`;
  return `${upper ? TITLES[changeClass].toUpperCase() : TITLES[changeClass]} (${changes.length}${places})`;
}

function renderText(report: DiffReport): string {
  const lines = [`Contract diff: ${report.old} → ${report.new}`, summaryLine(report)];
  if (report.changes.length === 0) lines.push('', 'No changes a client could notice.');
  for (const changeClass of CHANGE_CLASSES) {
    const changes = report.changes.filter((c) => c.class === changeClass);
    if (!changes.length) continue;
    const groups = groupChanges(changes);
    lines.push('', countLine(changeClass, changes, groups, true));
    for (const { first, changes: all } of groups) {
      lines.push(`  [${first.rule}] ${first.reason}${overridden(first)}`);
      for (const change of all.slice(0, LISTED_OPERATIONS)) lines.push(`    ${occurrence(change)}`);
      if (all.length > LISTED_OPERATIONS) lines.push(`    … and ${all.length - LISTED_OPERATIONS} more (--format json lists every one)`);
      const pointer = pointerOf(first);
      if (pointer) lines.push(`    ${pointer}`);
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
    const groups = groupChanges(changes);
    if (changeClass === 'safe') {
      // Safe changes can run to thousands (a bound added to a shared schema): counted per rule, listed in the JSON output.
      const perRule = new Map<string, number>();
      for (const change of changes) perRule.set(change.rule, (perRule.get(change.rule) ?? 0) + 1);
      lines.push('', `<details><summary>${countLine(changeClass, changes, groups)}</summary>`, '', '| Rule | Changes |', '|---|---|', ...[...perRule].map(([rule, count]) => `| ${code(rule)} | ${count} |`), '', '</details>');
      continue;
    }
    lines.push('', `#### ${countLine(changeClass, changes, groups)}`, '', '| Change | Where | Rule |', '|---|---|---|');
    for (const { first, changes: all } of groups) {
      const where = all.slice(0, LISTED_OPERATIONS).map((c) => `${code(operationName(c))} ${cell(place(c))}`);
      if (all.length > LISTED_OPERATIONS) where.push(`and ${all.length - LISTED_OPERATIONS} more`);
      lines.push(`| ${cell(first.reason)}${cell(overridden(first))} | ${where.join('<br>')} | ${code(first.rule)} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
