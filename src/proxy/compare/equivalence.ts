import type { PathSegment } from './json-path.js';
import { isVolatileName } from './volatility.js';

/**
 * What keeps the mock's state equivalent to the real service's while a client talks to both:
 * the real service and the mock each issue their own ids and tokens, so a later request that
 * names an upstream id reaches the mock with the mock's id for the same thing.
 *
 *  - Learned from every answer both sides gave with 2xx to a write (a create, a token) or to a
 *    read of something named by a known id (not from lists, which would pair by position): walking both
 *    JSON bodies side by side, every volatile-named member (`id`, `…Id`, `accessToken`,
 *    `trackingNumber`, …) whose values differ pairs the upstream value with the mock's (a pair once
 *    learned is kept); and the differing path segments of a write's `Location`.
 *  - Credentials: a Basic header (client credentials) is replaced by the mock's own company
 *    credentials; a Bearer token by the mock's token learned from the same token request.
 *    The company id in `/v1/companies/{id}/tokens` maps to the mock's company id.
 *  - Applied to the request sent to the mock: path segments, query values, JSON string values
 *    and the Authorization header; and, when comparing, ids inside strings (a problem's
 *    `instance` and `detail`, a document URL) and the upstream's origin in absolute URLs.
 */
export class Equivalence {
  private readonly upstreamToMock = new Map<string, string>();

  constructor(
    private readonly mockCredentials: { companyId: string; clientId: string; clientSecret: string },
    private readonly origins: { upstream: string; mock: string },
  ) {}

  get size(): number {
    return this.upstreamToMock.size;
  }

  /** The mock's value for an upstream value, or the value itself. */
  toMock(value: string): string {
    return this.upstreamToMock.get(value) ?? value;
  }

  learn(upstream: string, mock: string): void {
    if (!upstream || !mock || upstream === mock || this.upstreamToMock.has(upstream)) return;
    this.upstreamToMock.set(upstream, mock);
    // A long run against a busy service: the oldest pairs go first (Map keeps insertion order).
    if (this.upstreamToMock.size > MAX_PAIRS) this.upstreamToMock.delete(this.upstreamToMock.keys().next().value!);
  }

  /** The company id named by a company token request is the mock's default company. */
  learnCompany(upstreamCompanyId: string): void {
    this.learn(upstreamCompanyId, this.mockCredentials.companyId);
  }

  /** A path with each segment mapped (`/v1/addresses/<upstream id>` → `/v1/addresses/<mock id>`), the query's values too. */
  path(pathAndQuery: string): string {
    const [path, query] = splitQuery(pathAndQuery);
    const mapped = path
      .split('/')
      .map((segment) => {
        const decoded = safeDecode(segment);
        const to = this.upstreamToMock.get(decoded);
        return to === undefined ? segment : encodeURIComponent(to);
      })
      .join('/');
    if (query === undefined) return mapped;
    const params = new URLSearchParams(query);
    let changed = false;
    for (const [key, value] of [...params]) {
      const to = this.upstreamToMock.get(value);
      if (to !== undefined) {
        params.set(key, to);
        changed = true;
      }
    }
    return `${mapped}?${changed ? params.toString() : query}`;
  }

  /** The Authorization header the mock gets for the client's. */
  authorization(value: string | undefined): string | undefined {
    if (value === undefined) return undefined;
    const [scheme, ...rest] = value.trim().split(/\s+/);
    if (/^basic$/i.test(scheme)) return `Basic ${Buffer.from(`${this.mockCredentials.clientId}:${this.mockCredentials.clientSecret}`).toString('base64')}`;
    if (/^bearer$/i.test(scheme) && rest.length === 1) return `Bearer ${this.toMock(rest[0])}`;
    return value;
  }

  /** A JSON request body with every string value that is a known upstream id mapped. */
  body(value: unknown): unknown {
    if (typeof value === 'string') return this.toMock(value);
    if (Array.isArray(value)) return value.map((item) => this.body(item));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.body(v)]));
    return value;
  }

  /** Pairs the volatile-named members of two answers to the same write, place by place. */
  learnFromAnswers(upstream: unknown, mock: unknown, path: PathSegment[] = []): void {
    if (Array.isArray(upstream) && Array.isArray(mock)) {
      upstream.forEach((item, i) => i < mock.length && this.learnFromAnswers(item, mock[i], [...path, i]));
      return;
    }
    if (upstream && mock && typeof upstream === 'object' && typeof mock === 'object') {
      for (const [key, value] of Object.entries(upstream)) {
        if (Object.hasOwn(mock, key)) this.learnFromAnswers(value, (mock as Record<string, unknown>)[key], [...path, key]);
      }
      return;
    }
    const name = [...path].reverse().find((s): s is string => typeof s === 'string');
    if (typeof upstream === 'string' && typeof mock === 'string' && isVolatileName(name)) this.learn(upstream, mock);
  }

  /** `Location: …/addresses/<id>` of both answers: the differing segments pair up. */
  learnFromLocations(upstream: string | undefined, mock: string | undefined): void {
    if (!upstream || !mock) return;
    const a = pathOf(upstream).split('/');
    const b = pathOf(mock).split('/');
    if (a.length !== b.length) return;
    a.forEach((segment, i) => segment !== b[i] && this.learn(safeDecode(segment), safeDecode(b[i])));
  }

  /**
   * An upstream string as the mock would say it: known ids inside it mapped (a problem's
   * `instance`, a `detail` naming an id) and the upstream's origin replaced by the mock's.
   */
  translate(text: string): string {
    let out = text.split(this.origins.upstream).join(this.origins.mock);
    out = out.replace(TOKEN_LIKE, (token) => this.upstreamToMock.get(token) ?? token);
    return out;
  }
}

/** Pairs kept at most (a few hundred bytes each). */
const MAX_PAIRS = 200_000;

/** Ids as they appear inside text: UUIDs and other long word-like tokens. */
const TOKEN_LIKE = /[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]+)*/g;

function splitQuery(pathAndQuery: string): [string, string | undefined] {
  const q = pathAndQuery.indexOf('?');
  return q < 0 ? [pathAndQuery, undefined] : [pathAndQuery.slice(0, q), pathAndQuery.slice(q + 1)];
}

/** The path of an absolute URL or of a path with a query. */
export function pathOf(location: string): string {
  try {
    return new URL(location, 'http://relative.invalid').pathname;
  } catch {
    return location;
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
