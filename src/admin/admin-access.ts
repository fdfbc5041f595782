import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { NextFunction, Request, Response } from 'express';
import { ProblemError } from '../errors/problem.js';
import { requestState } from '../http/request-state.js';

export const ADMIN_KEY_HEADER = 'x-admin-key';
/**
 * Any value will do: a header no HTML form and no simple fetch can send, so a body-less POST
 * that carries it was sent on purpose (a browser would have to ask first, in a preflight).
 */
export const ADMIN_INTENT_HEADER = 'x-shipmock-admin';

// Fetch standard §2.2.2 (CORS-safelisted request-header): the only Content-Types a page may send
// without a preflight — what an HTML form or a simple fetch posts.
const SIMPLE_CONTENT_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);
const PREFLIGHT_HEADERS = 'Content-Type, X-Shipmock-Admin, X-Admin-Key';

/** 127.0.0.0/8 and ::1, also in their IPv4-mapped IPv6 form (and the name localhost). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  // isIP: "127.evil.example" is a DNS name anyone can point anywhere, not a loopback address.
  return plain === '::1' || (plain.startsWith('127.') && isIP(plain) === 4) || plain === 'localhost';
}

/** Whether a bind address only accepts connections from this machine. */
export function isLoopbackHost(host: string): boolean {
  return isLoopback(host.replace(/^\[|\]$/g, ''));
}

/** The name in a Host header, without port and brackets, lower case; undefined when it is not one. */
export function hostnameOf(host: string | undefined): string | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]\s/]+)(?::\d*)?$/i.exec(host?.trim() ?? '');
  return match ? match[1].replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase() : undefined;
}

/**
 * An allowed browser origin as the browser serialises it: `scheme://host[:port]`, lower case,
 * default port left out. Throws on anything else (paths, `*`, `null`).
 *
 * @example normalizeAdminOrigin('http://LOCALHOST:3000/') // 'http://localhost:3000'
 */
export function normalizeAdminOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${JSON.stringify(value)} is not an origin like http://localhost:3000`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search || url.hash || url.username) {
    throw new Error(`${JSON.stringify(value)} is not an origin like http://localhost:3000 (scheme, host and port only)`);
  }
  return url.origin;
}

function sameKey(given: string, expected: string): boolean {
  // Hashing first gives equal lengths, so the comparison time says nothing about the key.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

function refused(detail: string): ProblemError {
  return new ProblemError('control-plane-refused', { detail: `${detail}; nothing was changed` });
}

/**
 * Whether a browser sent the request: it names its page's origin (always on a cross-origin
 * fetch, and on any same-origin request but GET/HEAD), or Sec-Fetch-Site says where it came
 * from. Sec-Fetch-Mode alone is not a sign: Node's fetch sends `sec-fetch-mode: cors` on every
 * request; browsers send Sec-Fetch-Site with it. `none` is the user typing the URL themselves.
 */
export function isBrowserRequest(req: Request): boolean {
  const site = req.headers['sec-fetch-site'];
  return req.headers.origin !== undefined || (site !== undefined && site !== 'none');
}

/**
 * Answers carrying client secrets or tokens are never given to a page of another origin, not even
 * to an allowed --admin-origin: whatever script runs there could send them anywhere. The mock's
 * own pages (the inspector, /docs — same origin, served by the mock itself, loading nothing from
 * elsewhere) may read them: they export state and fetch a token for the seeded company. The Host
 * check (or the admin key) has already shut out pages that rebind their name to the mock.
 *
 * @example refuseBrowser(req, 'GET /__admin/credentials'); // throws for fetch() from another origin's page
 */
export function refuseBrowser(req: Request, what: string): void {
  if (!isForeignPage(req)) return;
  throw refused(`${what} answers secrets (client secrets, tokens, webhook secrets), which no page of another origin may read (not even an allowed --admin-origin); call it from a terminal, a test, a script or the mock's own inspector`);
}

/**
 * Whether a page of another origin sent the request (an allowed --admin-origin, since others are
 * refused before): what it reads is shown with credentials shortened (src/util/redact.ts), and
 * answers that hold nothing but secrets are refused to it (refuseBrowser).
 */
export function isForeignPage(req: Request): boolean {
  return isBrowserRequest(req) && !isOwnPage(req);
}

export interface AdminAccessOptions {
  /** Every request but health must carry it in X-Admin-Key; without one, only loopback callers get in. */
  adminKey?: string;
  /** Browser origins allowed cross-origin (normalised with normalizeAdminOrigin). */
  origins?: string[];
  /** Host header names accepted besides loopback ones (DNS rebinding guard; off with a key). */
  hosts?: string[];
  /** Methods the control plane declares for a path, for preflights; undefined for an unknown path. */
  allowedMethods?: (path: string) => string[] | undefined;
}

/**
 * Who may use the control plane, and from where (README, Control plane security). It is for the
 * user — their terminal, their tests — not for the web pages their browser happens to open:
 *  1. Host     must be loopback (localhost, 127.0.0.0/8, [::1]) or a --admin-host: a page that
 *              rebinds its own DNS name to 127.0.0.1 sends its own name (403). Skipped with a key.
 *  2. Origin   a page of another origin gets 403 unless --admin-origin allows it; allowed ones get
 *              their origin echoed (never `*`) and their preflights answered.
 *  3. Caller   with an admin key, X-Admin-Key from everyone (401); without one, only loopback
 *              callers (403), so a mock bound to a LAN address cannot be reset by its neighbours.
 *  4. Intent   a POST must not be a "simple" request a form or a no-preflight fetch can send:
 *              a form or text Content-Type is 415; no body needs X-Shipmock-Admin (or a JSON
 *              Content-Type, or X-Admin-Key) (403). PUT, PATCH and DELETE are never simple.
 * Health stays open to any caller and Host (container health checks); the Origin rule holds.
 */
export function adminAccess(options: AdminAccessOptions) {
  const origins = new Set((options.origins ?? []).map(normalizeAdminOrigin));
  const hosts = new Set((options.hosts ?? []).map((host) => hostnameOf(host) ?? host.toLowerCase()));
  return function adminAccessStep(req: Request, res: Response, next: NextFunction) {
    // The answer depends on Origin: a cache must not hand one origin's answer to another.
    res.setHeader('Vary', 'Origin');
    const health = req.path === '/health';
    if (!health && !options.adminKey) checkHost(req, hosts);
    const origin = req.headers.origin;
    if (origin !== undefined && origins.has(origin)) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
        const methods = options.allowedMethods?.(requestState(req).pathname);
        if (methods) return answerPreflight(res, methods);
      }
    } else if (origin !== undefined && origin !== ownOrigin(req)) {
      throw refused(`The control plane answers no page of ${origin}; start shipmock with --admin-origin ${origin} to allow one`);
    } else if (origin === undefined && (req.headers['sec-fetch-site'] === 'cross-site' || req.headers['sec-fetch-site'] === 'same-site')) {
      throw refused('The control plane answers no page of another origin (Sec-Fetch-Site without Origin)');
    }
    if (health) return next();
    checkCaller(req, options.adminKey);
    checkIntent(req);
    next();
  };
}

/**
 * Who may load the inspector's files: without an admin key, what the control plane allows (a
 * loopback Host, a loopback caller); with one, anyone — the files hold no data, and the page asks
 * for the key before it calls the control plane.
 */
export function checkPageAccess(req: Request, options: { adminKey?: string; hosts?: string[] }): void {
  if (options.adminKey) return;
  checkHost(req, new Set((options.hosts ?? []).map((host) => hostnameOf(host) ?? host.toLowerCase())));
  checkCaller(req, undefined);
}

function checkHost(req: Request, hosts: Set<string>): void {
  const name = hostnameOf(req.headers.host);
  if (name !== undefined && (name === 'localhost' || (isIP(name) !== 0 && isLoopback(name)) || hosts.has(name))) return;
  throw refused(
    `The control plane answers only requests to a loopback host (localhost, 127.0.0.1, [::1]), not to ${JSON.stringify(req.headers.host ?? '')}; add the name with --admin-host, or start with --admin-key`,
  );
}

function checkCaller(req: Request, adminKey: string | undefined): void {
  if (adminKey) {
    const given = req.headers[ADMIN_KEY_HEADER];
    if (typeof given === 'string' && sameKey(given, adminKey)) return;
    throw new ProblemError('unauthorized', { detail: given === undefined ? 'The control plane needs the X-Admin-Key header' : 'The X-Admin-Key is wrong' });
  }
  if (isLoopback(req.socket.remoteAddress)) return;
  throw new ProblemError('forbidden', { detail: 'The control plane answers only loopback callers unless shipmock is started with --admin-key' });
}

function checkIntent(req: Request): void {
  // Only POST can be a simple request that changes something (GET and HEAD change nothing here).
  if (req.method !== 'POST') return;
  const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (SIMPLE_CONTENT_TYPES.has(type)) {
    throw new ProblemError('unsupported-media-type', {
      detail: `The control plane takes JSON: send the body as application/json (got ${type}, which an HTML form or a page's simple fetch can send); nothing was changed`,
    });
  }
  if (type || req.headers[ADMIN_INTENT_HEADER] !== undefined || req.headers[ADMIN_KEY_HEADER] !== undefined) return;
  throw refused('A POST without a body needs the header X-Shipmock-Admin: 1 (or Content-Type: application/json), which no HTML form or simple fetch can send');
}

/** A request from one of the mock's own pages: the browser says same-origin, and any Origin it names is the mock's. */
function isOwnPage(req: Request): boolean {
  const origin = req.headers.origin;
  return req.headers['sec-fetch-site'] === 'same-origin' && (origin === undefined || origin === ownOrigin(req));
}

function ownOrigin(req: Request): string {
  const scheme = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  return `${scheme}://${String(req.headers.host ?? '').toLowerCase()}`;
}

function answerPreflight(res: Response, methods: string[]): void {
  res.setHeader('Access-Control-Allow-Methods', methods.join(', '));
  res.setHeader('Access-Control-Allow-Headers', PREFLIGHT_HEADERS);
  res.setHeader('Access-Control-Max-Age', '600');
  res.writeHead(204);
  res.end();
}
