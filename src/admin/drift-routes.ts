import { Router, type Request, type Response } from 'express';
import { ProblemError } from '../errors/problem.js';
import { createDriftLog, DRIFT_KINDS, type DriftKind, type DriftQuery } from '../journal/drift-log.js';
import type { MockRuntime } from '../runtime/runtime.js';
import { reply, replyEmpty } from './admin-contract.js';

const QUERY_KEYS = ['operation_id', 'method', 'path', 'kind', 'field', 'drifted', 'limit', 'cursor'];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

/** The query of GET /drift, or why it is refused (one message per bad parameter). */
export function parseDriftQuery(url: string): DriftQuery | { field: string; message: string }[] {
  const search = new URLSearchParams(url.split('?')[1] ?? '');
  const problems: { field: string; message: string }[] = [];
  const single = (key: string): string | undefined => {
    const values = search.getAll(key);
    if (values.length > 1) problems.push({ field: `query/${key}`, message: 'may be given once' });
    return values[0];
  };
  for (const key of new Set(search.keys())) if (!QUERY_KEYS.includes(key)) problems.push({ field: `query/${key}`, message: `is not a parameter of GET /__admin/drift (use ${QUERY_KEYS.join(', ')})` });
  const text = (key: string, max: number): string | undefined => {
    const value = single(key);
    if (value !== undefined && (value.length === 0 || value.length > max)) problems.push({ field: `query/${key}`, message: `must have 1 to ${max} characters` });
    return value;
  };
  const operationId = text('operation_id', 100);
  const path = text('path', 500);
  const field = text('field', 500);
  const method = single('method');
  if (method !== undefined && !METHODS.includes(method)) problems.push({ field: 'query/method', message: `must be one of ${METHODS.join(', ')}` });
  const kind = single('kind');
  if (kind !== undefined && !DRIFT_KINDS.includes(kind as DriftKind)) problems.push({ field: 'query/kind', message: `must be one of ${DRIFT_KINDS.join(', ')}` });
  const drifted = single('drifted');
  if (drifted !== undefined && drifted !== 'true' && drifted !== 'false') problems.push({ field: 'query/drifted', message: 'must be true or false' });
  const limitText = single('limit');
  const limit = limitText === undefined ? DEFAULT_LIMIT : /^\d{1,7}$/.test(limitText) ? Number(limitText) : NaN;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) problems.push({ field: 'query/limit', message: `must be an integer from 1 to ${MAX_LIMIT}` });
  const cursor = text('cursor', 100);
  if (problems.length) return problems;
  return { operationId, method, path, field, kind: kind as DriftKind | undefined, drifted: drifted === undefined ? undefined : drifted === 'true', limit, cursor };
}

/**
 * The drift a `shipmock compare` run recorded in this mock:
 *  GET    /drift   newest first, with a summary by operation and field over every matching record;
 *                  operation_id, method, path (prefix), kind, field, drifted, limit (≤1000, default 100), cursor
 *  DELETE /drift   drops every record (the mock's resources stay)
 */
export function driftRoutes(runtime: MockRuntime): Router {
  const router = Router();
  const drift = createDriftLog({ scope: () => runtime.store.global, now: () => runtime.clock.nowIso() });
  router.get('/drift', (req: Request, res: Response) => {
    const query = parseDriftQuery(req.url);
    if (Array.isArray(query)) {
      throw new ProblemError('validation-error', { detail: query.map((p) => `${p.field} ${p.message}`).join('; '), violations: query });
    }
    // A cursor of another sort or not one this log handed out is a 400 problem from the collection.
    reply(res, 200, drift.find(query));
  });
  router.delete('/drift', (_req: Request, res: Response) => {
    const cleared = drift.clear();
    runtime.logger.info({ cleared }, 'drift records cleared');
    replyEmpty(res, 204);
  });
  return router;
}
