import type { ProxyViolation } from '../proxy/exchange-log.js';
import type { KeyedRequest } from './exchange-key.js';

/**
 * One recorded exchange as record and replay use it: the request (secrets shortened), the
 * answer (secrets shortened) and the contract's verdict on it when it was recorded.
 */
export interface RecordedExchange {
  startedAt: string;
  durationMs: number;
  request: KeyedRequest & { headers: [string, string][] };
  response: { status: number; headers: [string, string][]; body: Buffer };
  /** What broke the contract, request and response; [] when the exchange conformed. */
  violations: ProxyViolation[];
}
