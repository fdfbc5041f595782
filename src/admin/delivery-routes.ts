import { ProblemError } from '../errors/problem.js';
import { Router, type Request, type Response } from 'express';
import { reply } from './admin-contract.js';
import type { MockRuntime } from '../runtime/runtime.js';
import { redactHeaders, redactJson, redactUrl } from '../util/redact.js';
import { isForeignPage } from './admin-access.js';
import { decodeCursor, DELIVERY_STATUSES, type Delivery, type DeliveryAttempt, type DeliveryPurge, type DeliveryQuery, type DeliveryStatus } from '../events/delivery-log.js';

const QUERY_KEYS = new Set(['channel_id', 'account_id', 'topic', 'status', 'limit', 'cursor']);
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

/**
 * A delivery as the control plane shows it; the list leaves out the event (fetch one for it).
 * Attempts show the target URL and the headers with credentials shortened (src/util/redact.ts),
 * for every caller; a page of another origin also gets the event's payload so (a Carrier
 * Definition's settings).
 */
function view(req: Request, delivery: Delivery, withEvent: boolean) {
  const { seq: _seq, roundStart: _roundStart, owner: _owner, inFlight: _inFlight, event, attempts, ...rest } = delivery;
  const shown = { ...rest, attempts: attempts.map(shownAttempt), attemptCount: attempts.length };
  if (!withEvent) return shown;
  return { ...shown, event: isForeignPage(req) ? redactJson(event) : event };
}

function shownAttempt(attempt: DeliveryAttempt): DeliveryAttempt {
  const { requestHeaders, responseHeaders } = attempt;
  return {
    ...attempt,
    url: redactUrl(attempt.url),
    ...(requestHeaders ? { requestHeaders: redactHeaders(requestHeaders) } : {}),
    ...(responseHeaders ? { responseHeaders: redactHeaders(responseHeaders) } : {}),
  };
}

function parseQuery(query: Record<string, unknown>): DeliveryQuery | string {
  for (const key of Object.keys(query)) if (!QUERY_KEYS.has(key)) return `unknown query parameter ${key}; use ${[...QUERY_KEYS].join(', ')}`;
  const single = (key: string) => (typeof query[key] === 'string' ? (query[key] as string) : undefined);
  if (Object.values(query).some((v) => typeof v !== 'string')) return 'each query parameter may be given once';
  const status = single('status');
  if (status !== undefined && !DELIVERY_STATUSES.includes(status as DeliveryStatus)) return `status must be one of ${DELIVERY_STATUSES.join(', ')}`;
  const limit = single('limit') === undefined ? DEFAULT_LIMIT : Number(single('limit'));
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) return `limit must be an integer from 1 to ${MAX_LIMIT}`;
  const cursor = single('cursor');
  if (cursor !== undefined) {
    try {
      decodeCursor(cursor);
    } catch {
      return 'cursor is not one this log handed out';
    }
  }
  return {
    channelId: single('channel_id'),
    accountId: single('account_id'),
    topic: single('topic'),
    status: status as DeliveryStatus | undefined,
    limit,
    cursor,
  };
}

const PURGE_KEYS = new Set(['status', 'channel_id', 'account_id', 'topic']);
const PURGEABLE: readonly DeliveryPurge['status'][] = ['FAILED', 'DELIVERED', 'CANCELLED'];

function parsePurge(query: Record<string, unknown>): DeliveryPurge | string {
  for (const key of Object.keys(query)) if (!PURGE_KEYS.has(key)) return `unknown query parameter ${key}; use ${[...PURGE_KEYS].join(', ')}`;
  if (Object.values(query).some((v) => typeof v !== 'string')) return 'each query parameter may be given once';
  const single = (key: string) => query[key] as string | undefined;
  const status = single('status');
  if (status === undefined) return `status is required: one of ${PURGEABLE.join(', ')} (FAILED purges the dead letters)`;
  if (!PURGEABLE.includes(status as DeliveryPurge['status'])) return `status must be one of ${PURGEABLE.join(', ')}; unfinished deliveries cannot be purged`;
  return { status: status as DeliveryPurge['status'], channelId: single('channel_id'), accountId: single('account_id'), topic: single('topic') };
}

/**
 * The webhook delivery log on the control plane:
 *  GET  /deliveries                  newest first; channel_id, account_id, topic, status, limit (≤1000, default 100), cursor
 *  GET  /deliveries/:id              one delivery with every attempt and the event it carries
 *  POST /deliveries/:id/redeliver    a finished delivery gets a new round of attempts (202)
 *  DELETE /deliveries?status=FAILED   purges dead letters (or DELIVERED / CANCELLED ones); channel_id, account_id, topic narrow it
 */
export function deliveryRoutes(runtime: MockRuntime): Router {
  const router = Router();
  router.get('/deliveries', (req: Request, res: Response) => {
    const query = parseQuery(queryOf(req.url));
    if (typeof query === 'string') throw new ProblemError('validation-error', { detail: query });
    const page = runtime.webhooks.list(query);
    reply(res, 200, { ...page, items: page.items.map((d) => view(req, d, false)), nextCursor: page.nextCursor });
  });
  router.delete('/deliveries', (req: Request, res: Response) => {
    const filter = parsePurge(queryOf(req.url));
    if (typeof filter === 'string') {
      throw new ProblemError('validation-error', { detail: filter, violations: [{ field: 'query', message: filter }] });
    }
    const purged = runtime.webhooks.purge(filter);
    runtime.logger.info({ ...filter, purged }, 'deliveries purged from the log');
    reply(res, 200, { purged });
  });
  router.get('/deliveries/:id', (req: Request, res: Response) => {
    const delivery = runtime.webhooks.get(String(req.params.id));
    if (!delivery) throw new ProblemError('not-found', { detail: `No delivery ${String(req.params.id)} in the log` });
    reply(res, 200, view(req, delivery, true));
  });
  router.post('/deliveries/:id/redeliver', (req: Request, res: Response) => {
    const result = runtime.webhooks.redeliver(String(req.params.id));
    if (!result.ok) throw new ProblemError(result.reason === 'not-found' ? 'not-found' : 'conflict', { detail: result.message });
    reply(res, 202, view(req, result.delivery, true));
  });
  return router;
}

/** The raw query; a repeated parameter becomes an array, which parseQuery refuses. */
function queryOf(url: string): Record<string, string | string[]> {
  const search = new URLSearchParams(url.split('?')[1] ?? '');
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(search.keys())) {
    const values = search.getAll(key);
    out[key] = values.length === 1 ? values[0] : values;
  }
  return out;
}
