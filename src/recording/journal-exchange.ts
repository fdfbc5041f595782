import type { JournalEntryWithExchange, JournalMessage } from '../journal/journal.js';
import type { Exchange } from './exchange.js';

/**
 * A journal entry as an exchange (for GET /__admin/journal.har), and what keeps it from being an
 * exact recording: an exchange the journal did not keep (it samples successful ones under
 * load), a body cut at 16 KiB, a binary body (named, not kept), a connection reset before an
 * answer. `origin` is the mock's own (`http://127.0.0.1:4010`): the journal keeps paths.
 *
 * @example journalExchange(control.journal.get(7)!, 'http://127.0.0.1:4010').exchange.request.url
 */
export function journalExchange(item: JournalEntryWithExchange, origin: string): { exchange: Exchange; incomplete?: string } {
  const { entry, exchange } = item;
  const url = `${origin}${entry.path}${entry.query ? `?${entry.query}` : ''}`;
  const verdict =
    entry.validation === 'valid'
      ? { conforms: true, violations: [] }
      : entry.validation === 'invalid-request' || entry.validation === 'invalid-response'
        ? { conforms: false, violations: [...(exchange?.violations.request ?? []).map((v) => ({ ...v, field: `request/${v.field}` })), ...(exchange?.violations.response ?? [])] }
        : undefined;
  const reasons: string[] = [];
  if (!exchange) reasons.push('the journal did not keep this exchange');
  if (entry.status === undefined) reasons.push(`the connection closed before an answer (${entry.outcome})`);
  else if (entry.outcome !== 'completed') reasons.push(`the answer was ${entry.outcome}`);
  const message = (side: 'request' | 'response', m: JournalMessage | undefined) => {
    if (m?.bodyTruncated) reasons.push(`the ${side} body was cut at 16 KiB (${m.bodyBytes} bytes)`);
    if (m?.binary) reasons.push(`the ${side} body (${m.binary}, ${m.bodyBytes} bytes) is not kept by the journal`);
    return { headers: m?.headers ?? {}, ...(m?.body !== undefined ? { body: m.body } : {}) };
  };
  const request = message('request', exchange?.request);
  const response = message('response', exchange?.response);
  return {
    exchange: {
      request: { method: entry.method, url, ...request },
      response: { status: entry.status ?? 0, ...response },
      ...(verdict ? { verdict } : {}),
      startedAt: entry.at,
      durationMs: entry.latencyMs,
      ...(entry.operationId ? { operationId: entry.operationId } : {}),
    },
    ...(reasons.length ? { incomplete: reasons.join('; ') } : {}),
  };
}
