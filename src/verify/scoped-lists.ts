import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';

/**
 * A list that spans more than the interaction's provider state created. Every state works in a
 * fresh account, so an account's own lists hold only what the state made; the company's list
 * of accounts also holds whatever the test company had before (an account without `alias`, made
 * by hand after the README), which the pact's `eachLike` would judge as if the provider had
 * answered it wrongly. Such a list is read for the state's own items only: the check is that
 * the provider lists what the state created, in the shape the consumer expects.
 */
export interface ScopedList {
  method: string;
  path: string;
  /** The ids the state created (the items to keep). */
  ids(): string[];
}

/** Pages followed at most to find the state's items (a provider with thousands of accounts). */
const MAX_PAGES = 50;
const NOT_FORWARDED = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'accept-encoding', 'upgrade', 'te', 'trailer']);
const NOT_RETURNED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding']);

type Send = (request: Request) => Promise<Response>;

/**
 * Answers a scoped list request itself: the same request to the provider (following
 * `nextCursor` until every created item is found), then the first page's answer with `items`
 * narrowed to the created ones, in the provider's order. Anything but a JSON list (an error, a
 * 401) is passed through unchanged, so the pact judges it as the provider sent it.
 *
 * @example await answerScopedList(req, res, { baseUrl: 'http://127.0.0.1:4010', ids: ['0b6f…'] });
 */
export async function answerScopedList(req: ExpressRequest, res: ExpressResponse, options: { baseUrl: string; ids: string[]; send?: Send }): Promise<void> {
  const send = options.send ?? ((request: Request) => fetch(request));
  const url = new URL(req.originalUrl, `${options.baseUrl.replace(/\/+$/, '')}/`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || NOT_FORWARDED.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const wanted = new Set(options.ids);
  const found: unknown[] = [];
  let first: { status: number; headers: Headers; text: string; body?: Record<string, unknown> } | undefined;
  for (let page = 0, next: URL | undefined = url; page < MAX_PAGES && next; page++) {
    const answer = await send(new Request(next, { method: req.method, headers }));
    const text = await answer.text();
    const body = answer.ok ? jsonObject(text) : undefined;
    first ??= { status: answer.status, headers: answer.headers, text, body };
    if (!body || !Array.isArray(body.items)) break;
    found.push(...body.items.filter((item) => wanted.has((item as { id?: unknown } | null)?.id as string)));
    const cursor = typeof body.nextCursor === 'string' ? body.nextCursor : undefined;
    if (found.length >= wanted.size || !cursor) break;
    next = new URL(url);
    next.searchParams.set('cursor', cursor);
  }
  res.status(first!.status);
  first!.headers.forEach((value, name) => {
    if (!NOT_RETURNED.has(name)) res.setHeader(name, value);
  });
  if (!first!.body || !Array.isArray(first!.body.items)) {
    res.send(first!.text);
    return;
  }
  // The other items and the cursor to them are the provider's own data, not the state's.
  const { nextCursor: _others, ...envelope } = first!.body;
  res.send(JSON.stringify({ ...envelope, items: found }));
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
