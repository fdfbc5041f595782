import type { UsageLine } from '../../billing/model.js';

/** contract: UsageReportAccount */
export interface UsageReportAccount {
  accountId: string;
  usage: UsageLine[];
}

/** contract: UsageReport (contract/DECISIONS.md "Reports path, level and period"). */
export interface UsageReport {
  periodFrom: string;
  periodTo: string;
  level: 'ACCOUNT' | 'COMPANY';
  companyId: string;
  accountId?: string;
  usage: UsageLine[];
  accounts?: UsageReportAccount[];
}

/** Query period_from (inclusive) / period_to (exclusive), ISO timestamps. */
export interface ReportPeriodInput {
  periodFrom?: string;
  periodTo?: string;
}
