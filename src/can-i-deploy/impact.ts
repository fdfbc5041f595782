import { changesForInteraction, type ContractChange, type DiffReport } from '../contract-diff/diff.js';
import type { CanIDeployReport, InteractionResult } from './check-pacts.js';

/** One interaction of a consumer, as the impact report names it. */
export interface InteractionRef {
  consumer: string;
  interaction: string;
  verdict: InteractionResult['verdict'];
}

/** A change of the diff that is not safe, with the consumer interactions that use what it changed. */
export interface ChangeImpact {
  change: ContractChange;
  interactions: InteractionRef[];
}

/**
 * The diff and the pacts together: which consumers a contract change breaks, at which
 * interactions, and which it leaves alone. A consumer is *broken* when one of its interactions is
 * broken against the new contract, *exposed* when none is broken but a breaking or may-break
 * change touches an operation and status it uses, and *unaffected* otherwise.
 */
export interface ImpactReport {
  changes: ChangeImpact[];
  broken: Record<string, string[]>;
  exposed: Record<string, string[]>;
  unaffected: string[];
}

const refOf = (result: InteractionResult): InteractionRef => ({ consumer: result.consumer, interaction: result.interaction, verdict: result.verdict });

function addTo(groups: Record<string, string[]>, consumer: string, interaction: string): void {
  const list = (groups[consumer] ??= []);
  if (!list.includes(interaction)) list.push(interaction);
}

/**
 * Joins a contract diff (old → new) with the verdicts of the pacts against the new contract.
 * Webhook messages are joined by webhook name; HTTP interactions by method, path template and status.
 *
 * @example impactOfChanges(await diffInputs('git:main:contract/openapi.yaml', 'contract/openapi.yaml'), checkPactsAgainstContract(contract, pacts))
 */
export function impactOfChanges(diff: DiffReport, report: CanIDeployReport): ImpactReport {
  const risky = diff.changes.filter((change) => change.class !== 'safe');
  const touching = (result: InteractionResult): ContractChange[] => {
    if (!result.operation) return [];
    if (result.operation.webhook) return risky.filter((change) => change.location === 'webhook' && change.operation?.path === result.operation!.path);
    return changesForInteraction(risky, { method: result.operation.method, path: result.operation.path, status: result.status });
  };
  const impacts = new Map<ContractChange, InteractionRef[]>(risky.map((change) => [change, []]));
  const broken: Record<string, string[]> = {};
  const exposed: Record<string, string[]> = {};
  for (const result of report.results) {
    const changes = touching(result);
    for (const change of changes) impacts.get(change)!.push(refOf(result));
    if (result.verdict === 'broken') addTo(broken, result.consumer, result.interaction);
    else if (changes.length > 0) addTo(exposed, result.consumer, result.interaction);
  }
  for (const consumer of Object.keys(broken)) delete exposed[consumer];
  const consumers = [...new Set(report.results.map((result) => result.consumer))];
  return {
    changes: [...impacts].map(([change, interactions]) => ({ change, interactions })),
    broken,
    exposed,
    unaffected: consumers.filter((consumer) => !(consumer in broken) && !(consumer in exposed)),
  };
}

const list = (names: string[]) => (names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`);

/** One sentence: "this change breaks consumers A and B at these interactions; C is unaffected". */
export function impactSentence(impact: ImpactReport): string {
  const broken = Object.keys(impact.broken);
  const exposed = Object.keys(impact.exposed);
  const parts = [
    broken.length ? `breaks ${list(broken)} at ${Object.values(impact.broken).flat().length} interaction(s)` : 'breaks no consumer',
    ...(exposed.length ? [`may break ${list(exposed)} (a risky change touches what they use)`] : []),
    ...(impact.unaffected.length ? [`${list(impact.unaffected)} ${impact.unaffected.length === 1 ? 'is' : 'are'} unaffected`] : []),
  ];
  return `this change ${parts.join('; ')}`;
}

/** The impact for people: the sentence, then each consumer's interactions, then each risky change and who uses it. */
export function formatImpact(impact: ImpactReport, format: 'text' | 'markdown'): string {
  const lines: string[] = [];
  const heading = (text: string) => lines.push(format === 'markdown' ? `#### ${text}` : text);
  lines.push(format === 'markdown' ? `### Impact: ${impactSentence(impact)}` : `impact: ${impactSentence(impact)}`, '');
  for (const [title, groups] of [['broken', impact.broken], ['may break', impact.exposed]] as const) {
    for (const [consumer, interactions] of Object.entries(groups)) {
      heading(`${consumer} — ${title}`);
      for (const interaction of interactions) lines.push(`  - ${interaction}`);
    }
  }
  const used = impact.changes.filter((entry) => entry.interactions.length > 0);
  if (used.length) heading('risky changes and the interactions that use what they changed');
  for (const { change, interactions } of used) {
    const where = change.operation ? `${change.operation.method} ${change.operation.path}` : change.where;
    lines.push(`  - [${change.class}] ${where}: ${change.reason}`);
    for (const ref of interactions) lines.push(`      ${ref.consumer}: ${ref.interaction} (${ref.verdict})`);
  }
  const unused = impact.changes.length - used.length;
  if (unused) lines.push(`  ${unused} risky change(s) touch nothing a consumer's pact uses`);
  return `${lines.join('\n')}\n`;
}
