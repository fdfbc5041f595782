import type { TokenService } from '../../auth/tokens.js';
import type { RouteMatcher } from '../../contract/route-matcher.js';
import { authorizationOf, isOutsideApi, requestState } from '../../http/request-state.js';
import type { ApiRequest } from '../../http/types.js';
import { EVENT_CHANNELS } from '../../resources/event-channels/subscribed-channels.js';
import type { ScenarioEngine } from '../../scenarios/engine.js';
import type { Store, UnitLock } from '../../store/store.js';

/**
 * Operations an account's token may call that write outside the account's scope: they lock
 * everything (docs/scaling.md, "What a unit locks"). Bookings issue carrier numbers (the
 * global set of issued numbers); PUDO points are generated into the global scope on first read;
 * affiliate configurations are global; accounts live in their company's scope (and a global
 * index of owners); tokens, mock events and event deliveries write the company scope or webhook
 * deliveries (the system scope). Anything missing here is still safe: the shared store checks at
 * commit that nothing another process committed meanwhile is overwritten (a conflict answers 503).
 */
const WIDE_OPERATIONS = new Set([
  'createShipmentBooking',
  'createInlineShipmentBooking',
  'getPudoPoint',
  'queryPudoPoints',
  'getAffiliateConfig',
  'replaceAffiliateConfig',
  'createAccount',
  'listAccounts',
  'getAccount',
  'replaceAccount',
  'deleteAccount',
  'issueCompanyToken',
  'issueAccountToken',
  'issueAffiliateToken',
  'createMockEvent',
  'deliverEvent',
  'deliverShipmentBookingEvent',
  'deliverUsageEvent',
]);

export interface UnitLockOptions {
  routes: RouteMatcher;
  tokens: Pick<TokenService, 'verify'>;
  scenarios: Pick<ScenarioEngine, 'hasRequestRules' | 'hasDomainRules'>;
  store: Pick<Store, 'hasAccount' | 'account' | 'accountInMemory'>;
}

/**
 * What a request's unit of work locks in a store that locks per account (`Store.locksAccounts`),
 * decided before the unit starts and without a lock: the account of a verified Account token
 * (signature and expiry; whether the account still stands is checked inside the unit), for an
 * operation that stays inside that account. Everything else is wide (`wide: true` with the account
 * when it is known, so that a bounded working set reads it ahead): the control plane and pages,
 * requests without a valid Account token (their rate-limit window is the client address's, and a
 * token endpoint counts login failures), operations of WIDE_OPERATIONS, any request while a
 * scenario has rules (scenario counters are shared state) or that names one in X-Shipmock-Scenario,
 * and requests of an account with event channels (the events they publish queue webhook
 * deliveries in the system scope). What this reads without the lock may be a little stale; the
 * store's check at commit keeps a wrong guess from losing a write. A GET or HEAD of the account
 * is a read (`read: true`): the shared store runs it without the account's lock (docs/scaling.md,
 * "Reads without a lock").
 *
 * @example const lockOf = unitLockOf({ routes, tokens, scenarios, store }); store.transaction(work, 'request', lockOf(req));
 */
export function unitLockOf(options: UnitLockOptions): (req: ApiRequest) => UnitLock {
  const { routes, tokens, scenarios, store } = options;
  return function lockOf(req) {
    const { pathname, method } = requestState(req);
    if (isOutsideApi(pathname) || req.headers['x-shipmock-scenario'] !== undefined) return undefined;
    if (scenarios.hasRequestRules('request') || scenarios.hasRequestRules('body') || scenarios.hasDomainRules()) return undefined;
    const authorization = authorizationOf(req);
    if (authorization.scheme !== 'bearer' || !authorization.token) return undefined;
    const verified = tokens.verify(authorization.token);
    if (!verified.ok || verified.claims.lvl !== 'ACCOUNT' || !verified.claims.aid) return undefined;
    const account = verified.claims.aid;
    const route = routes.match(method, pathname);
    // Wide, naming the account: a store with a bounded working set reads it ahead.
    if (route.kind === 'operation' && WIDE_OPERATIONS.has(route.operation.operationId)) return { account, wide: true };
    // A shared store's account not in memory is not read for this guess: taken as without channels (its deliveries' rows are checked at commit).
    const scope = store.accountInMemory ? store.accountInMemory(account) : store.hasAccount(account) ? store.account(account) : undefined;
    if ((scope?.existing(EVENT_CHANNELS)?.size ?? 0) > 0) return { account, wide: true };
    // A GET or HEAD writes nothing of the account as a rule (a tracker catching up, its rate-limit
    // window do): the shared store runs it without the lock and again under it if it wrote.
    return method === 'GET' || method === 'HEAD' ? { account, read: true } : { account };
  };
}
