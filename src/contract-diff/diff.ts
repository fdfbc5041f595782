import { inMemoryDocumentSet, loadDocumentSet, type DocumentSet } from './load.js';
import { OperationDiffer, type RawChange } from './operations.js';
import { ruleById, severityOf, type ChangeClass } from './rules.js';
import { SchemaDiffer } from './schema-diff.js';

/**
 * One change between two contract versions, classified for a client. The JSON output of
 * `shipmock contract diff --format json` is a list of these (docs/contract-diff.md, "JSON").
 */
export interface ContractChange extends RawChange {
  /** The class after `--rules` overrides. */
  class: ChangeClass;
  /** The rule's own class (differs from `class` when a rules file changed it). */
  ruleClass: ChangeClass;
}

export interface DiffSummary {
  breaking: number;
  'may-break': number;
  safe: number;
}

export interface DiffReport {
  old: string;
  new: string;
  summary: DiffSummary;
  changes: ContractChange[];
}

export interface DiffOptions {
  /** Rule id → class, e.g. from a `--rules` file (rules-file.ts). */
  overrides?: Record<string, ChangeClass>;
  /** Documents that `$ref`s in the in-memory documents name, by reference path ('common.yaml'). */
  oldFiles?: Record<string, unknown>;
  newFiles?: Record<string, unknown>;
}

/**
 * Every change between two OpenAPI 3.1 documents, classified breaking / may-break / safe for
 * a client, worst first. The documents are parsed objects (or loaded document sets).
 *
 * @example
 * const report = diffContracts(oldDoc, newDoc, { overrides: { 'response-enum-widened': 'safe' } });
 * report.changes.filter((c) => c.class === 'breaking').map((c) => `${c.operation?.method} ${c.operation?.path}: ${c.reason}`);
 */
export function diffContracts(oldDoc: unknown, newDoc: unknown, options: DiffOptions = {}): DiffReport {
  const oldSet = isDocumentSet(oldDoc) ? oldDoc : inMemoryDocumentSet(oldDoc, 'old', options.oldFiles);
  const newSet = isDocumentSet(newDoc) ? newDoc : inMemoryDocumentSet(newDoc, 'new', options.newFiles);
  const differ = new OperationDiffer(oldSet, newSet, new SchemaDiffer(oldSet, newSet));
  differ.compareAll();
  const changes = dedupe(differ.changes).map((raw) => classify(raw, options.overrides ?? {}));
  changes.sort(compareChanges);
  const summary: DiffSummary = { breaking: 0, 'may-break': 0, safe: 0 };
  for (const change of changes) summary[change.class]++;
  return { old: oldSet.label, new: newSet.label, summary, changes };
}

/**
 * Reads two inputs (file, URL of a running mock, or `git:REV:path`) and diffs them.
 * @example await diffInputs('git:HEAD~1:contract/openapi.yaml', 'contract/openapi.yaml')
 */
export async function diffInputs(oldInput: string, newInput: string, options: DiffOptions & { cwd?: string } = {}): Promise<DiffReport> {
  const [oldSet, newSet] = await Promise.all([loadDocumentSet(oldInput, 'old', options.cwd), loadDocumentSet(newInput, 'new', options.cwd)]);
  return diffContracts(oldSet, newSet, options);
}

function isDocumentSet(value: unknown): value is DocumentSet {
  return !!value && typeof value === 'object' && (value as DocumentSet).documents instanceof Map;
}

function classify(raw: RawChange, overrides: Record<string, ChangeClass>): ContractChange {
  const ruleClass = ruleById(raw.rule).class;
  const { rule, reason, operation, location, status, where, schemaPath, pointer } = raw;
  return {
    rule,
    class: overrides[rule] ?? ruleClass,
    ruleClass,
    reason,
    ...(operation ? { operation } : {}),
    ...(location ? { location } : {}),
    ...(status ? { status } : {}),
    where,
    ...(schemaPath ? { schemaPath } : {}),
    pointer: Object.fromEntries(Object.entries(pointer).filter(([, v]) => v !== undefined)),
  };
}

/** The same finding reached twice (a schema shared by two media types of one body is reported per media type, not twice per path). */
function dedupe(changes: RawChange[]): RawChange[] {
  const seen = new Set<string>();
  return changes.filter((c) => {
    const key = JSON.stringify([c.rule, c.operation, c.where, c.schemaPath, c.pointer, c.reason]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const text = (value: string | undefined) => value ?? '';
/** Plain code-unit order: stable across machines and locales (localeCompare is neither, and slow). */
const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
function compareChanges(a: ContractChange, b: ContractChange): number {
  return (
    severityOf(b.class) - severityOf(a.class) ||
    order(text(a.operation?.path), text(b.operation?.path)) ||
    order(text(a.operation?.method), text(b.operation?.method)) ||
    order(a.where, b.where) ||
    order(text(a.schemaPath), text(b.schemaPath)) ||
    order(a.rule, b.rule) ||
    order(a.reason, b.reason)
  );
}

/** What an interaction of a consumer uses: the operation (method + path template) and the status it expects. */
export interface InteractionRef {
  method: string;
  path: string;
  status?: number | string;
}

/**
 * The changes that concern one consumer interaction: everything about its operation that is not
 * a response, and response changes of the status it expects (`2XX` covers 200–299; `default`
 * covers any status). Path templates match whatever their parameters are named.
 *
 * @example changesForInteraction(report.changes, { method: 'GET', path: '/v1/documents/{id}', status: 200 })
 */
export function changesForInteraction(changes: ContractChange[], interaction: InteractionRef): ContractChange[] {
  const template = (path: string) => path.replace(/\{[^}]*\}/g, '{}');
  const status = interaction.status === undefined ? undefined : String(interaction.status);
  return changes.filter((change) => {
    if (!change.operation || change.location === 'webhook') return false;
    if (change.operation.method !== interaction.method.toUpperCase() || template(change.operation.path) !== template(interaction.path)) return false;
    if (change.location !== 'response' || status === undefined || change.status === undefined) return true;
    if (change.status === 'default') return true;
    return /^\dXX$/.test(change.status) ? change.status[0] === status[0] : change.status === status;
  });
}
