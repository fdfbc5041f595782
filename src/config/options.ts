import type { ClockOptions } from '../clock/clock.js';
import type { LogLevel } from '../logging/logger.js';
import type { CredentialsFile } from '../auth/credentials.js';
import type { OpenApiDocument } from '../contract/load-contract.js';
import type { WebhookOptions } from '../events/webhook-options.js';


/** Everything a mock instance can be configured with. The CLI maps its flags onto this. */
export interface MockOptions {
  /** Seed of the one random source (ids, generated data, Prism fallback bodies). Default 1. */
  seed?: number;
  /** Path of, or the parsed, OpenAPI 3.1 contract. Default: the bundled contract/openapi.yaml. */
  contract?: string | OpenApiDocument;
  /** Operations without a stateful handler: answer from the contract via Prism, or 501. Default 'prism'. */
  unhandled?: 'prism' | 'error';
  /**
   * false: contract-only mode — no stateful handlers; every operation is answered by the
   * unhandled policy (Prism), still behind auth, validation and response checks. Default true.
   */
  stateful?: boolean;
  /** A response that breaks the contract: 500 problem ('error', default), log only ('warn'), or unchecked ('off'). */
  responseValidation?: 'error' | 'warn' | 'off';
  /** Largest accepted request body in bytes. Default 1 MiB. */
  bodyLimit?: number;
  clock?: ClockOptions;
  /** Fixes the token signing secret so tokens survive a restart. Default: random per instance. */
  tokenSecret?: string;
  /** Credentials accepted (companies, affiliates, admins). Default: fixtures/credentials.json. */
  credentials?: CredentialsFile;
  /** Overrides of the default company's credentials. */
  companyId?: string;
  clientId?: string;
  clientSecret?: string;
  /** Token lifetimes in ms. Defaults: company and account 4 h, affiliate 15 min, admin 1 h. */
  tokenLifetimes?: Partial<Record<'company' | 'account' | 'affiliate' | 'admin', number>>;
  /** Requests per window per verified credential. Default 6000 per 60 s. */
  rateLimit?: { limit: number; windowMs: number };
  /**
   * Requests per window per client address for callers without a verified credential (none,
   * garbage, forged or expired token, wrong Basic). Default a tenth of `rateLimit` (600 per 60 s).
   */
  addressRateLimit?: { limit: number; windowMs: number };
  /** Wrong client secrets per (client id, address) before that pair is locked (429). Default 10 per 15 min. */
  loginLockout?: { failures: number; windowMs: number };
  /** Webhook delivery: timeout, attempts, backoff, jitter, log caps (src/events/webhook-options.ts). */
  webhooks?: WebhookOptions;
  logLevel?: LogLevel;
  logFormat?: 'pretty' | 'json';
  /** Scenarios active from the start: a ready scenario's name, a file path, or a definition (README, section qa). */
  scenarios?: ScenarioActivationInput[];
  /** Requests kept in the journal (GET /__admin/journal). Default 1000. */
  journalSize?: number;
  /** Key the control plane (/__admin) requires in X-Admin-Key. Without one it answers only loopback callers. */
  adminKey?: string;
  /**
   * Browser origins (`http://localhost:3000`) allowed to call the control plane cross-origin;
   * every other page is refused (README, Control plane security). Default none.
   */
  adminOrigins?: string[];
  /**
   * Host header names the control plane accepts besides loopback ones (localhost, 127.0.0.0/8,
   * [::1]); guards against DNS rebinding. Not checked when an admin key is set. Default none.
   */
  adminHosts?: string[];
  /**
   * Web page origins (`https://app.example`) allowed to use the API from a browser besides pages
   * served from this machine (localhost, 127.0.0.0/8, [::1], any port); `'*'` allows every page.
   * Other pages get the mock's own origin in Access-Control-Allow-Origin (README, CORS). Default none.
   */
  corsOrigins?: string[];
}

/** A scenario to activate: its name or file, or the name/file/definition with a scope and parameters. */
export type ScenarioActivationInput =
  | string
  | { scenario: string | object; accountId?: string; params?: Record<string, string | number | boolean> };

export interface ResolvedOptions extends Required<Pick<MockOptions, 'seed' | 'unhandled' | 'stateful' | 'responseValidation' | 'bodyLimit' | 'logLevel' | 'logFormat'>> {
  raw: MockOptions;
  tokenLifetimes: Record<'company' | 'account' | 'affiliate' | 'admin', number>;
  rateLimit: { limit: number; windowMs: number };
  /** Unset: derived from rateLimit (src/rate-limit/request-limits.ts). */
  addressRateLimit?: { limit: number; windowMs: number };
  loginLockout: { failures: number; windowMs: number };
}

const HOUR = 3_600_000;

export function resolveOptions(options: MockOptions = {}): ResolvedOptions {
  return {
    raw: options,
    seed: options.seed ?? 1,
    unhandled: options.unhandled ?? 'prism',
    stateful: options.stateful ?? true,
    responseValidation: options.responseValidation ?? 'error',
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    logLevel: options.logLevel ?? 'info',
    logFormat: options.logFormat ?? 'pretty',
    tokenLifetimes: {
      company: 4 * HOUR,
      account: 4 * HOUR,
      // Spec contradiction: 15 min per the contract descriptor, 4 h per the guide. The descriptor wins.
      affiliate: 15 * 60_000,
      admin: HOUR,
      ...options.tokenLifetimes,
    },
    rateLimit: options.rateLimit ?? { limit: 6000, windowMs: 60_000 },
    addressRateLimit: options.addressRateLimit,
    loginLockout: options.loginLockout ?? { failures: 10, windowMs: 15 * 60_000 },
  };
}
