// How the inspector talks to the control plane: relative URLs (the page lives at
// /__admin/ui/, so '../' is /__admin/), the admin key when the mock asks for one, and the
// X-Shipmock-Admin header that marks a body-less POST as meant (src/admin/admin-access.ts).

import type { Problem } from './types';

const ADMIN_BASE = new URL('../', location.href);
/** The mock's root, where the API and /docs live. */
export const MOCK_BASE = new URL('../../', location.href);
const KEY_STORAGE = 'shipmock-admin-key';

/** A control-plane answer other than 2xx, with its RFC 7807 problem. */
export class AdminError extends Error {
  constructor(readonly status: number, readonly problem?: Problem) {
    super(problem?.detail ?? problem?.title ?? `HTTP ${status}`);
  }
}

export function adminKey(): string | undefined {
  return sessionStorage.getItem(KEY_STORAGE) ?? undefined;
}

export function setAdminKey(key: string): void {
  sessionStorage.setItem(KEY_STORAGE, key);
}

let keyNeeded: (() => void) | undefined;
/** Called when the mock answers 401: it was started with --admin-key and the page has none (or a wrong one). */
export function whenKeyNeeded(callback: () => void): void {
  keyNeeded = callback;
}

export function adminUrl(path: string): string {
  return new URL(path.replace(/^\//, ''), ADMIN_BASE).toString();
}

export function adminHeaders(extra: Record<string, string> = {}): Record<string, string> {
  const key = adminKey();
  return { 'X-Shipmock-Admin': '1', ...(key ? { 'X-Admin-Key': key } : {}), ...extra };
}

async function send(path: string, init: RequestInit): Promise<Response> {
  const response = await fetch(adminUrl(path), init);
  if (response.ok) return response;
  let problem: Problem | undefined;
  try {
    problem = (await response.json()) as Problem;
  } catch {
    problem = undefined;
  }
  if (response.status === 401) keyNeeded?.();
  throw new AdminError(response.status, problem);
}

/** GET, or a method with an optional JSON body; answers the parsed JSON (undefined for 204). */
export async function admin<T>(path: string, options: { method?: string; body?: unknown } = {}): Promise<T> {
  const hasBody = options.body !== undefined;
  const response = await send(path, {
    method: options.method ?? 'GET',
    headers: adminHeaders(hasBody ? { 'Content-Type': 'application/json' } : {}),
    body: hasBody ? JSON.stringify(options.body) : undefined,
  });
  return (response.status === 204 ? undefined : await response.json()) as T;
}

/** POST of a text body (a YAML scenario). */
export async function adminText<T>(path: string, contentType: string, text: string): Promise<T> {
  const response = await send(path, { method: 'POST', headers: adminHeaders({ 'Content-Type': contentType }), body: text });
  return (await response.json()) as T;
}

/** Bytes (a document) as a blob, so previews work with an admin key too (an <img src> cannot send headers). */
export async function adminBlob(path: string): Promise<Blob> {
  const response = await send(path, { headers: adminHeaders() });
  return response.blob();
}

/** The text of an error for people: the problem's detail and each violation. */
export function describeError(error: unknown): string {
  if (error instanceof AdminError) {
    const violations = error.problem?.properties?.violations ?? [];
    return [error.message, ...violations.map((v) => `${v.field}: ${v.message}`)].join('\n');
  }
  return error instanceof Error ? error.message : String(error);
}
