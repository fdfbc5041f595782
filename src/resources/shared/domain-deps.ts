import type { CredentialRegistry } from '../../auth/credentials.js';
import type { TokenService } from '../../auth/tokens.js';
import type { CarrierInterceptors } from '../../carriers/interceptors.js';
import type { Catalogue } from '../../carrier-catalogue/model.js';
import type { Clock } from '../../clock/clock.js';
import type { EventBus } from '../../events/event-bus.js';
import type { WebhookDispatcher } from '../../events/webhook-dispatcher.js';
import type { Random } from '../../random/random.js';
import type { ScenarioEngine } from '../../scenarios/engine.js';
import type { Store } from '../../store/store.js';

/**
 * The parts of one mock instance the domain is built from. A service names the parts it uses
 * (`Pick<DomainDeps, 'store' | 'clock'>`), so its signature says what it touches and a test can
 * build it from just those; the composition root (resources/index.ts) hands them in.
 */
export interface DomainDeps {
  store: Store;
  clock: Clock;
  random: Random;
  events: EventBus;
  /** The carrier catalogue, immutable. */
  catalogue: Catalogue;
  /** Domain scenario rules (quote validity, tracker outcomes, labels). */
  scenarios: ScenarioEngine;
  credentials: CredentialRegistry;
  tokens: Pick<TokenService, 'sign'>;
  tokenLifetimes: Record<'company' | 'account' | 'affiliate' | 'admin', number>;
  /** What event channels need of webhook delivery: the allowed hosts, and stopping a deleted channel's deliveries. */
  webhooks: Pick<WebhookDispatcher, 'allowlist' | 'endpoints' | 'cancelChannel'>;
  carrierInterceptors: CarrierInterceptors;
}

/** What every account-scoped resource family uses: its store, ids, timestamps and events. */
export type ResourceDeps = Pick<DomainDeps, 'store' | 'clock' | 'random' | 'events'>;
