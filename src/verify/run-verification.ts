import type { VerifierOptions } from '@pact-foundation/pact';
import { isMessageInteraction, readPactFiles, statesOf, writeFilteredPacts, type PactFile, type PactInteraction } from './pact-files.js';
import { createInteractionCycles, type Cycle } from './interaction-cycles.js';
import { PROVIDER_STATES, type TargetControl } from './provider-states.js';
import { createPublicApiSteps, type CompanyAccess } from './public-api-steps.js';
import { startWebhookInbox, type WebhookInbox } from './webhook-inbox.js';
import { checkReachable } from './reachability.js';

export const DEFAULT_PROVIDER = 'ShippingPlatformAPI';

/** Broker settings passed through to the Pact Verifier (see brokerVerifierOptions). */
export interface BrokerSettings {
  brokerUrl?: string;
  brokerToken?: string;
  publish?: boolean;
  providerVersion?: string;
  providerBranch?: string;
}

export interface VerifyProviderOptions {
  /** The provider under test, e.g. http://127.0.0.1:4010 or https://api.example.com */
  baseUrl: string;
  /** The test company the provider states act for. */
  access: Omit<CompanyAccess, 'baseUrl'>;
  /** What the target can do beyond its public API (shipmockControl / realTargetControl). */
  control: TargetControl;
  /** Pact files or directories (default: pacts). Ignored when a broker URL is given. */
  pacts?: string[];
  provider?: string;
  broker?: BrokerSettings;
  /** Where the provider delivers webhooks for message pacts (default: a local inbox on a free port). */
  webhook?: { port?: number; publicUrl?: string };
  /** Sends the provider-state setup requests (tests inject in-process fetches). */
  fetch?: (request: Request) => Promise<Response>;
  logLevel?: 'trace' | 'debug' | 'info' | 'warn' | 'error';
}

export type InteractionStatus = 'passed' | 'failed' | 'skipped';

export interface InteractionOutcome {
  consumer: string;
  description: string;
  states: string[];
  status: InteractionStatus;
  /** Why it failed or was skipped, one line each. */
  reasons: string[];
}

export interface VerificationReport {
  ok: boolean;
  provider: string;
  baseUrl: string;
  interactions: InteractionOutcome[];
  counts: Record<InteractionStatus, number>;
  /** Accounts the teardown could not delete (the provider keeps them). */
  cleanupProblems: string[];
}

interface VerifierJson {
  result?: boolean;
  interactionResults?: { description: string; result: string }[];
  errors?: { interaction: string; mismatch?: { type?: string; message?: string; mismatches?: { path?: string; mismatch?: string; type?: string }[] } }[];
}

/** The capabilities a state needs that the target lacks, with the state's explanation. */
function missingCapabilities(control: TargetControl, interaction: PactInteraction): string[] {
  return statesOf(interaction).flatMap((state) => {
    const definition = PROVIDER_STATES[state.name];
    const missing = (definition?.requires ?? []).filter((c) => !control.capabilities.has(c));
    return missing.length ? [`state "${state.name}" needs ${missing.join(' and ')}: ${definition!.because ?? ''}`.trim()] : [];
  });
}

/**
 * Verifies the pacts against a provider with the Pact Verifier. Provider states are set up
 * through the public API (plus the target's control plane where it has one); a state that
 * fails to set up fails its interaction loudly (the request is answered 500 with the reason,
 * instead of pact-js's silent 200); states the target cannot reach are skipped with the
 * reason. Message pacts are verified against the webhooks the provider really delivers.
 *
 * @example
 * const report = await verifyProvider({ baseUrl: mock.url, access: mock.credentials, control: shipmockControl(mock.url) });
 * console.log(formatReport(report));
 */
export async function verifyProvider(options: VerifyProviderOptions): Promise<VerificationReport> {
  const provider = options.provider ?? DEFAULT_PROVIDER;
  const fromBroker = Boolean(options.broker?.brokerUrl);
  // Checked before anything is started, so a usage error leaves nothing running.
  const broker = brokerVerifierOptions(provider, options.broker ?? {});
  // Before anything starts: a provider or broker that is not there ends the run in seconds
  // with one line (UnreachableError), not in a minute of retries and stack traces.
  await checkReachable(options.baseUrl, 'provider');
  if (options.broker?.brokerUrl) {
    const headers: Record<string, string> = options.broker.brokerToken ? { Authorization: `Bearer ${options.broker.brokerToken}` } : {};
    const refused = options.broker.brokerToken ? 'it refused the token' : 'it needs a token (--broker-token)';
    await checkReachable(options.broker.brokerUrl, 'Pact Broker', { headers, refuse: { 401: refused, 403: refused } });
  }
  const { Verifier, providerWithMetadata } = await loadPact();
  const steps = createPublicApiSteps({ ...options.access, baseUrl: options.baseUrl }, { fetch: options.fetch });

  const pacts: PactFile[] = fromBroker ? [] : readPactFiles(options.pacts ?? ['pacts'], provider);
  const skipped: InteractionOutcome[] = [];
  const pactUrls = fromBroker
    ? []
    : writeFilteredPacts(pacts, (pact, interaction) => {
        const missing = missingCapabilities(options.control, interaction);
        if (missing.length) {
          skipped.push({ consumer: pact.consumer, description: interaction.description, states: statesOf(interaction).map((s) => s.name), status: 'skipped', reasons: missing });
        }
        return missing.length === 0;
      });
  const needsInbox = fromBroker || pacts.some((p) => p.interactions.some(isMessageInteraction));
  const inbox: WebhookInbox | undefined = needsInbox ? await startWebhookInbox(options.webhook) : undefined;
  const cycles = createInteractionCycles({ steps, control: options.control, inbox, provider: { baseUrl: options.baseUrl, send: options.fetch } });

  const stateNames = new Set([...Object.keys(PROVIDER_STATES), ...pacts.flatMap((p) => p.interactions.flatMap((i) => statesOf(i).map((st) => st.name)))]);
  const messageDescriptions = pacts.flatMap((p) => p.interactions.filter(isMessageInteraction).map((i) => i.description));
  const verifierOptions: VerifierOptions = {
    provider,
    providerBaseUrl: options.baseUrl,
    logLevel: options.logLevel ?? 'error',
    stateHandlers: cycles.stateHandlers(fromBroker ? 'any' : stateNames),
    messageProviders: cycles.messageProviders(fromBroker ? 'any' : messageDescriptions, providerWithMetadata),
    requestFilter: cycles.requestFilter,
    ...(fromBroker ? {} : { pactUrls }),
    ...broker,
  };

  let json: VerifierJson = {};
  let crash: string | undefined;
  try {
    if (fromBroker || pactUrls.length) json = parseVerifierJson(await new Verifier(verifierOptions).verifyProvider());
  } catch (error) {
    const parsed = parseVerifierJson((error as Error).message);
    if (parsed.interactionResults) json = parsed;
    else crash = (error as Error).message;
  } finally {
    await cycles.finish();
    await inbox?.close();
  }

  const interactions = [...outcomesFrom(json, pacts, cycles.cycles), ...skipped];
  if (crash) interactions.push({ consumer: '', description: '(verifier)', states: [], status: 'failed', reasons: [crash] });
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for (const outcome of interactions) counts[outcome.status]++;
  return { ok: counts.failed === 0 && !crash, provider, baseUrl: options.baseUrl, interactions, counts, cleanupProblems: cycles.cleanupProblems };
}

/** Pact is needed only here; a clear message beats a module-not-found stack for an install without it. */
async function loadPact(): Promise<typeof import('@pact-foundation/pact')> {
  try {
    return await import('@pact-foundation/pact');
  } catch (error) {
    throw new Error(`shipmock verify needs @pact-foundation/pact ~16.5 (npm install --save-dev @pact-foundation/pact@~16.5.0): ${(error as Error).message}`);
  }
}

function parseVerifierJson(text: unknown): VerifierJson {
  if (typeof text !== 'string') return {};
  try {
    return JSON.parse(text) as VerifierJson;
  } catch {
    return {};
  }
}

/** Pairs the verifier's results (in execution order) with our setup cycles and the pacts' states. */
function outcomesFrom(json: VerifierJson, pacts: PactFile[], cycles: Cycle[]): InteractionOutcome[] {
  const results = json.interactionResults ?? [];
  const aligned = cycles.length === results.length;
  return results.map((result, index) => {
    const pact = pacts.find((p) => p.interactions.some((i) => i.description === result.description));
    const interaction = pact?.interactions.find((i) => i.description === result.description);
    const cycle = aligned ? cycles[index] : undefined;
    const reasons = cycle?.errors.length
      ? [...cycle.errors]
      : (json.errors ?? []).filter((e) => e.interaction.endsWith(` - ${result.description}`) || e.interaction === result.description).flatMap(describeError);
    const passed = result.result === 'OK' && reasons.length === 0;
    return {
      consumer: pact?.consumer ?? '',
      description: result.description,
      states: interaction ? statesOf(interaction).map((s) => s.name) : (cycle?.states ?? []),
      status: passed ? 'passed' : 'failed',
      reasons: passed ? [] : reasons.length ? reasons : [`verifier result: ${result.result}`],
    };
  });
}

function describeError(error: NonNullable<VerifierJson['errors']>[number]): string[] {
  const mismatch = error.mismatch;
  if (mismatch?.mismatches?.length) return mismatch.mismatches.map((m) => [m.path && m.path !== '/' ? m.path : '', m.mismatch ?? m.type].filter(Boolean).join(' '));
  return [mismatch?.message ?? mismatch?.type ?? 'failed'];
}

/**
 * Maps broker flags onto Pact Verifier options: a broker URL makes the broker the pact source
 * (for this provider, pending pacts enabled); --publish sends the results back, which needs a
 * provider version; the branch is recorded with the version.
 * @example brokerVerifierOptions('ShippingPlatformAPI', { brokerUrl: 'https://broker', brokerToken: 't', publish: true, providerVersion: '1.2.3' })
 */
export function brokerVerifierOptions(provider: string, broker: BrokerSettings): Partial<VerifierOptions> {
  if (broker.publish && !broker.providerVersion) throw new Error('--publish needs --provider-version (the version the results are recorded against)');
  if (broker.publish && !broker.brokerUrl) throw new Error('--publish needs --broker-url');
  const options: Partial<VerifierOptions> = {};
  if (broker.brokerUrl) {
    Object.assign(options, { pactBrokerUrl: broker.brokerUrl, provider, enablePending: true, consumerVersionSelectors: [{ mainBranch: true }, { deployedOrReleased: true }] });
    if (broker.brokerToken) options.pactBrokerToken = broker.brokerToken;
  }
  if (broker.providerVersion) options.providerVersion = broker.providerVersion;
  if (broker.providerBranch) options.providerVersionBranch = broker.providerBranch;
  if (broker.publish) options.publishVerificationResult = true;
  return options;
}
