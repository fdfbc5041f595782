import type { components } from '../../client/schema.js';
import type { UsageLine } from '../../billing/model.js';

type Schemas = components['schemas'];

/** contract: UsageReportAccount */
export type UsageReportAccount = Schemas['UsageReportAccount'];

/** contract: UsageReport (contract/DECISIONS.md "Reports path, level and period"). */
export type UsageReport = Schemas['UsageReport'];

/** Query period_from (inclusive) / period_to (exclusive), ISO timestamps. */
export interface ReportPeriodInput {
  periodFrom?: string;
  periodTo?: string;
}
