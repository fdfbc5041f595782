import type { Logger } from '../logging/logger.js';

/** One way an exchange broke the contract (the shape `validation: strict` reports too). */
export interface ProxyViolation {
  /** request: what the client sent (also a route outside the contract); response: what the upstream answered. */
  in: 'request' | 'response';
  field: string;
  message: string;
}

export interface ProxyExchange {
  method: string;
  path: string;
  operationId?: string;
  status: number;
  violations: ProxyViolation[];
}

export interface ProxySummary {
  requests: number;
  /** Exchanges with at least one violation. */
  violating: number;
  violations: number;
  /** operationId (or "METHOD path" outside the contract) → counts. */
  byOperation: Record<string, { requests: number; violations: number }>;
  /** The distinct violations, most frequent first. */
  top: { key: string; count: number }[];
}

const HISTORY = 10_000;

/** The exchanges a proxy has seen (the last 10,000), each logged, and the counts of their violations. */
export function createExchangeLog(log: Logger | undefined) {
  const history: ProxyExchange[] = [];
  const counts = new Map<string, number>();

  function record(exchange: ProxyExchange): void {
    history.push(exchange);
    if (history.length > HISTORY) history.shift();
    for (const v of exchange.violations) {
      const key = `${exchange.operationId ?? exchange.method + ' ' + exchange.path} ${v.in} ${v.field} ${v.message}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const line = { method: exchange.method, path: exchange.path, operationId: exchange.operationId, status: exchange.status };
    if (exchange.violations.length) log?.warn({ ...line, violations: exchange.violations }, `${exchange.violations.length} contract violation(s)`);
    else log?.info(line, 'conforms to the contract');
  }

  function summary(): ProxySummary {
    const byOperation: ProxySummary['byOperation'] = {};
    let violating = 0;
    let total = 0;
    for (const exchange of history) {
      const key = exchange.operationId ?? `${exchange.method} ${exchange.path}`;
      const entry = (byOperation[key] ??= { requests: 0, violations: 0 });
      entry.requests++;
      entry.violations += exchange.violations.length;
      total += exchange.violations.length;
      if (exchange.violations.length) violating++;
    }
    const top = [...counts].map(([key, count]) => ({ key, count })).sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
    return { requests: history.length, violating, violations: total, byOperation, top };
  }

  return { record, summary, exchanges: (): readonly ProxyExchange[] => history };
}

/**
 * The summary printed when the proxy stops.
 * @example process.stdout.write(formatProxySummary(proxy.summary()));
 */
export function formatProxySummary(summary: ProxySummary): string {
  const lines = [`${summary.requests} request(s), ${summary.violating} with contract violations (${summary.violations} violation(s) in total)`];
  for (const [operation, entry] of Object.entries(summary.byOperation).sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`  ${operation.padEnd(40)} ${String(entry.requests).padStart(5)} request(s) ${String(entry.violations).padStart(5)} violation(s)`);
  }
  if (summary.top.length) {
    lines.push('Violations, most frequent first:');
    for (const { key, count } of summary.top.slice(0, 50)) lines.push(`  ${String(count).padStart(5)}×  ${key}`);
  }
  return `${lines.join('\n')}\n`;
}
