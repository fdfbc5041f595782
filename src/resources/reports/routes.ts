import { ok, type HandlerMap } from '../shared/operation-handler.js';
import { ProblemError } from '../../errors/problem.js';
import type { ReportService } from './service.js';

export function reportRoutes(reports: ReportService): HandlerMap {
  return {
    // The token chooses the level: an Account token sees its account, a Company token the company.
    getUsageReport(ctx) {
      const period = { periodFrom: ctx.query.period_from as string | undefined, periodTo: ctx.query.period_to as string | undefined };
      const { level, companyId, accountId } = ctx.principal;
      if (level === 'ACCOUNT' && companyId && accountId) return ok(reports.forAccount(companyId, accountId, period));
      if (level === 'COMPANY' && companyId) return ok(reports.forCompany(companyId, period));
      throw new ProblemError('forbidden', { detail: 'Usage reports need an Account or Company token' });
    },
  };
}
