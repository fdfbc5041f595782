import type { PendingTimerView } from '../clock/clock.js';
import { USAGE_LINES, type UsageLine } from '../billing/model.js';
import type { UsageLedger } from '../billing/usage.js';
import type { Account } from '../resources/accounts/model.js';
import type { DocumentData } from '../resources/documents/model.js';
import type { EventEnvelope } from '../events/event-bus.js';
import type { MockRuntime } from '../runtime/runtime.js';
import { EVENT_CHANNEL_SECRETS } from '../resources/event-channels/subscribed-channels.js';

/**
 * What the inspector (/__admin/ui/) reads besides the journal: the stored objects by company,
 * account and collection, a document's bytes, the timers due next and usage per account. Read
 * only; a person changes state through the API or the other control-plane routes.
 */
export interface Inspection {
  overview(): StateOverview;
  items(accountId: string, collection: string, page: { offset: number; limit: number }): { total: number; items: unknown[] };
  item(accountId: string, collection: string, id: string): unknown | undefined;
  document(accountId: string, id: string): DocumentData;
  due(limit: number): DueItem[];
  usage(fromMs: number, toMs: number): UsageOverview;
  /** The newest published events (of one account, mentioning a text such as a booking id), oldest first. */
  events(filter: { accountId?: string; mentions?: string; limit: number }): EventEnvelope[];
}

export interface StateOverview {
  companies: { companyId: string; name: string; accounts: { accountId: string; name: string; enabled: boolean; collections: Record<string, number> }[] }[];
}

export interface DueItem {
  at: string;
  kind: PendingTimerView['kind'] | 'quote-expiry';
  subject: string;
  accountId?: string;
  detail?: string;
}

export interface UsageOverview {
  from: string;
  to: string;
  companies: { companyId: string; name: string; totals: UsageLine[]; accounts: { accountId: string; name: string; totals: UsageLine[]; daily: { date: string; tokens: number }[] }[] }[];
}

export interface InspectionDeps {
  documents: { data(accountId: string, id: string): DocumentData };
  usage: Pick<UsageLedger, 'records' | 'totals'>;
}

/**
 * Collections that hold nothing but secrets (webhook secrets and custom header values, kept apart
 * from the channels so no API read can show them): the inspector shows them, a page of another
 * origin is refused them (403), like GET /__admin/credentials.
 */
const SECRET_COLLECTIONS: ReadonlySet<string> = new Set([EVENT_CHANNEL_SECRETS]);

/** @example isSecretCollection('event-channel-secrets') // true */
export function isSecretCollection(name: string): boolean {
  return SECRET_COLLECTIONS.has(name);
}

/** Stored strings longer than this are cut in lists (document contents are base64): fetch the item. */
const LIST_STRING_LIMIT = 2048;
const DAY_MS = 86_400_000;

function cutLongStrings(value: unknown): unknown {
  if (typeof value === 'string') return value.length > LIST_STRING_LIMIT ? `${value.slice(0, 64)}… (${value.length} characters; open the item)` : value;
  if (Array.isArray(value)) return value.map(cutLongStrings);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutLongStrings(v)]));
  return value;
}

/** @example createInspection(runtime, { documents: services.documents, usage: services.usage }).overview() */
export function createInspection(runtime: MockRuntime, deps: InspectionDeps): Inspection {
  const { store, clock } = runtime;
  const accountsOf = (companyId: string) => store.company(companyId).existing<Account>('accounts')?.values() ?? [];
  const collectionOf = (accountId: string, name: string) => (store.hasAccount(accountId) ? store.account(accountId).existing<{ id: string }>(name) : undefined);
  const quoteExpiries = (): DueItem[] => {
    const now = clock.now();
    const out: DueItem[] = [];
    for (const accountId of store.accountIds()) {
      for (const batch of collectionOf(accountId, 'shipping-quote-batches')?.values() ?? []) {
        const { expiresAt, purchaseId } = batch as { expiresAt?: string; purchaseId?: string; id: string };
        if (expiresAt && Date.parse(expiresAt) > now) out.push({ at: expiresAt, kind: 'quote-expiry', subject: purchaseId ?? batch.id, accountId, detail: 'shipping quote expires' });
      }
    }
    return out;
  };

  return {
    // The events are the instance's (events/recent-events.ts, a registered part), reset with the rest.
    events: (filter) => runtime.recentEvents.find(filter),
    overview() {
      const companies = runtime.credentials.companies.map((company) => ({
        companyId: company.companyId,
        name: company.name ?? company.companyId,
        accounts: accountsOf(company.companyId).map((account) => {
          const collections: Record<string, number> = {};
          if (store.hasAccount(account.id)) {
            const scope = store.account(account.id);
            for (const name of scope.collectionNames()) {
              const size = scope.existing(name)?.size ?? 0;
              if (size > 0) collections[name] = size;
            }
          }
          return { accountId: account.id, name: account.company.name, enabled: account.enabled, collections };
        }),
      }));
      return { companies };
    },
    items(accountId, collection, page) {
      const found = collectionOf(accountId, collection);
      if (!found) return { total: 0, items: [] };
      return { total: found.size, items: found.slice(page.offset, page.offset + page.limit).map(cutLongStrings) };
    },
    item: (accountId, collection, id) => collectionOf(accountId, collection)?.get(id),
    document: (accountId, id) => deps.documents.data(accountId, id),
    due(limit) {
      const timers: DueItem[] = clock.pending(limit).map(({ at, ...label }) => ({ at: new Date(at).toISOString(), ...label }));
      return [...timers, ...quoteExpiries()].sort((a, b) => Date.parse(a.at) - Date.parse(b.at)).slice(0, limit);
    },
    usage(fromMs, toMs) {
      const sum = (lines: UsageLine[][]): UsageLine[] =>
        USAGE_LINES.map((line) => ({ ...line, tokens: lines.reduce((total, l) => total + (l.find((x) => x.operation === line.operation && x.topic === line.topic)?.tokens ?? 0), 0) }));
      const companies = runtime.credentials.companies.map((company) => {
        const accounts = accountsOf(company.companyId).map((account) => {
          const byDay = new Map<string, number>();
          for (const record of deps.usage.records(account.id)) {
            const at = Date.parse(record.recordedAt);
            if (at < fromMs || at >= toMs) continue;
            const day = new Date(Math.floor(at / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
            byDay.set(day, (byDay.get(day) ?? 0) + record.tokens);
          }
          const daily = [...byDay].sort(([a], [b]) => a.localeCompare(b)).map(([date, tokens]) => ({ date, tokens }));
          return { accountId: account.id, name: account.company.name, totals: deps.usage.totals(account.id, fromMs, toMs), daily };
        });
        return { companyId: company.companyId, name: company.name ?? company.companyId, totals: sum(accounts.map((a) => a.totals)), accounts };
      });
      return { from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString(), companies };
    },
  };
}
