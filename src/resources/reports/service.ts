import type { DomainDeps } from '../shared/domain-deps.js';
import { USAGE_LINES } from '../../billing/model.js';
import type { UsageLedger } from '../../billing/usage.js';
import { ProblemError } from '../../errors/problem.js';
import type { AccountService } from '../accounts/service.js';
import { compact } from '../../util/compact.js';
import type { ReportPeriodInput, UsageReport } from './model.js';

/**
 * Usage Reports (spec: "Reports exist at Company level (aggregate over all Accounts of the
 * company) and at Account level"). Numbers come straight from the usage ledger, so they
 * reconcile exactly with the bookings and PUDO queries made in the period.
 *
 * @example
 * reports.forAccount(companyId, accountId, {}) // this calendar month (UTC) on the mock clock
 * reports.forCompany(companyId, { periodFrom: '2026-01-01T00:00:00Z', periodTo: '2026-02-01T00:00:00Z' })
 */
export function createReportService(core: Pick<DomainDeps, 'clock'>, deps: { usage: UsageLedger; accounts: AccountService }) {
  const { clock } = core;

  /** [from, to) in epoch ms; omitted bounds default to the current UTC calendar month. */
  function periodOf(input: ReportPeriodInput): { from: number; to: number } {
    const now = new Date(clock.now());
    const from = input.periodFrom ? Date.parse(input.periodFrom) : Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    const to = input.periodTo ? Date.parse(input.periodTo) : Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    if (from >= to) {
      const message = `period_from (${new Date(from).toISOString()}) must be before period_to (${new Date(to).toISOString()})`;
      throw new ProblemError('validation-error', { detail: message, violations: [{ field: 'query/period_from', message }] });
    }
    return { from, to };
  }

  /** Every account id of a company, in creation order (expired accounts excluded). */
  function accountIdsOf(companyId: string): string[] {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = deps.accounts.list(companyId, { limit: 100, sort: 'ASC', cursor });
      ids.push(...page.items.map((a) => a.id));
      cursor = page.nextCursor;
    } while (cursor);
    return ids;
  }

  return {
    forAccount(companyId: string, accountId: string, input: ReportPeriodInput): UsageReport {
      const { from, to } = periodOf(input);
      return {
        periodFrom: new Date(from).toISOString(),
        periodTo: new Date(to).toISOString(),
        level: 'ACCOUNT',
        companyId,
        accountId,
        usage: deps.usage.totals(accountId, from, to),
      };
    },

    /** The company total plus one entry per account, zero usage included. */
    forCompany(companyId: string, input: ReportPeriodInput): UsageReport {
      const { from, to } = periodOf(input);
      const accounts = accountIdsOf(companyId).map((accountId) => ({ accountId, usage: deps.usage.totals(accountId, from, to) }));
      const usage = USAGE_LINES.map((line, i) => ({ ...line, tokens: accounts.reduce((sum, a) => sum + a.usage[i].tokens, 0) }));
      return compact({
        periodFrom: new Date(from).toISOString(),
        periodTo: new Date(to).toISOString(),
        level: 'COMPANY',
        companyId,
        usage,
        accounts,
      });
    },
  };
}

export type ReportService = ReturnType<typeof createReportService>;
