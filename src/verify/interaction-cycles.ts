import type { RequestHandler } from 'express';
import type { MessageProvider, VerifierOptions } from '@pact-foundation/pact';
import { PROVIDER_STATES, type StateParams, type StateRun, type StateValues, type TargetControl } from './provider-states.js';
import type { PublicApiSteps } from './public-api-steps.js';
import type { WebhookInbox } from './webhook-inbox.js';
import { answerScopedList, type ScopedList } from './scoped-lists.js';

/** One setup → request → teardown run of the verifier for one interaction, in execution order. */
export interface Cycle {
  run: StateRun;
  states: string[];
  values: StateValues;
  /** Why a state could not be set up; non-empty fails the interaction. */
  errors: string[];
  teardowns: number;
  /** The interaction's request (or message fetch) went through. */
  requested: boolean;
}

type WrapMessage = (provider: MessageProvider, metadata: Record<string, string>) => MessageProvider;

/**
 * The verifier runs interactions one after another — setup of each provider state, the request
 * (or the message fetch), teardown of each state — and tells the state handlers nothing about
 * which interaction they serve. This keeps one `Cycle` per interaction in that order, so the
 * report can pair them with the verifier's results, and wires the three hooks pact-js offers:
 * state handlers, message providers and the request filter.
 *
 * @example
 * const cycles = createInteractionCycles({ steps, control, inbox });
 * new Verifier({ stateHandlers: cycles.stateHandlers(names), requestFilter: cycles.requestFilter, … });
 */
export function createInteractionCycles(deps: {
  steps: PublicApiSteps;
  control: TargetControl;
  inbox?: WebhookInbox;
  /** The provider, for the lists read for the state's own items (src/verify/scoped-lists.ts). */
  provider?: { baseUrl: string; send?: (request: Request) => Promise<Response> };
}) {
  const cycles: Cycle[] = [];
  /** Company-wide lists: the company's accounts (every other list lives in the state's fresh account). */
  const scopedLists: ScopedList[] = [{ method: 'GET', path: '/v1/accounts', ids: () => deps.steps.createdAccountIds() }];
  const cleanupProblems: string[] = [];
  let open: Cycle | undefined;

  const newCycle = (): Cycle => {
    const cycle: Cycle = { run: { steps: deps.steps, control: deps.control, inbox: deps.inbox, undo: [] }, states: [], values: {}, errors: [], teardowns: 0, requested: false };
    cycles.push(cycle);
    return cycle;
  };

  /** Undoes the cycle's control-plane changes and deletes the accounts its states created. */
  const closeCycle = async (cycle: Cycle) => {
    for (const undo of cycle.run.undo.reverse()) await undo().catch((error: Error) => cleanupProblems.push(error.message));
    cycle.run.undo = [];
    cleanupProblems.push(...(await deps.steps.cleanUp()));
  };

  async function setUp(name: string, params: unknown): Promise<StateValues | undefined> {
    if (open?.requested) {
      await closeCycle(open);
      open = undefined;
    }
    open ??= newCycle();
    open.states.push(name);
    const definition = PROVIDER_STATES[name];
    try {
      if (!definition) throw new Error(`unknown state (known: ${Object.keys(PROVIDER_STATES).join('; ')})`);
      const missing = (definition.requires ?? []).filter((c) => !deps.control.capabilities.has(c));
      if (missing.length) throw new Error(`needs ${missing.join(' and ')}, which this target does not offer: ${definition.because ?? ''}`);
      Object.assign(open.values, await definition.setup(open.run, (params ?? {}) as StateParams));
      return open.values;
    } catch (error) {
      // pact-js answers a failed state handler with 200 and carries on; recording the failure
      // lets the request filter fail the interaction instead.
      open.errors.push(`provider state "${name}" could not be set up: ${(error as Error).message}`);
      return undefined;
    }
  }

  async function tearDown(): Promise<undefined> {
    if (open && ++open.teardowns >= open.states.length) {
      const done = open;
      open = undefined;
      await closeCycle(done);
    }
    return undefined;
  }

  const handlerFor = (name: string) => ({ setup: (params?: unknown) => setUp(name, params), teardown: tearDown });

  const messageProviderFor = (wrap: WrapMessage): MessageProvider => (descriptor) => {
    const delivery = (open ?? cycles[cycles.length - 1])?.run.captured;
    if (!delivery) throw new Error('the provider state captured no webhook delivery for this message');
    return wrap(() => delivery.body, { contentType: delivery.contentType || 'application/json' })(descriptor);
  };

  return {
    cycles,
    cleanupProblems,
    /** Handlers for these state names, or for any name (`'any'`: a broker's pacts are known only once fetched). */
    stateHandlers(names: Iterable<string> | 'any'): VerifierOptions['stateHandlers'] {
      // The {setup, teardown} form is missing from the published StateHandlers type (TOOLCHAIN.md).
      const table = names === 'any' ? anyName(handlerFor) : Object.fromEntries([...names].map((n) => [n, handlerFor(n)]));
      return table as VerifierOptions['stateHandlers'];
    },
    /** Every message description answers with the delivery its state captured; metadata via providerWithMetadata. */
    messageProviders(descriptions: Iterable<string> | 'any', wrap: WrapMessage): VerifierOptions['messageProviders'] {
      const provider = messageProviderFor(wrap);
      return names(descriptions, () => provider);
    },
    /**
     * Every interaction sends one request through here (HTTP request or message fetch). A state
     * that failed to set up answers it with a 500 naming the reason, so it cannot pass by accident.
     */
    requestFilter: ((req, res, next) => {
      if (req.path === '/_pactSetup') return next();
      const cycle = open && !open.requested ? open : newCycle();
      cycle.requested = true;
      if (cycle.errors.length) {
        res.status(500).json({ error: 'provider state setup failed', reasons: cycle.errors });
        return;
      }
      const scoped = deps.provider && scopedLists.find((list) => list.method === req.method && list.path === req.path.replace(/\/+$/, ''));
      const ids = scoped?.ids() ?? [];
      if (deps.provider && ids.length) {
        answerScopedList(req, res, { baseUrl: deps.provider.baseUrl, ids, send: deps.provider.send }).catch(next);
        return;
      }
      next();
    }) as RequestHandler,
    /** Closes a cycle the verifier left open (it stopped before the teardown). */
    async finish(): Promise<void> {
      if (open) await closeCycle(open);
      open = undefined;
    },
  };
}

function names<T>(list: Iterable<string> | 'any', make: (name: string) => T): Record<string, T> {
  return list === 'any' ? anyName(make) : Object.fromEntries([...list].map((n) => [n, make(n)]));
}

/**
 * A lookup table that answers every plain name (pact-js looks handlers up by state name or
 * message description). Symbols and Object.prototype names stay unanswered, so cloning or
 * inspecting the table does not call a handler.
 */
function anyName<T>(make: (name: string) => T): Record<string, T> {
  return new Proxy({} as Record<string, T>, {
    get: (_target, name) => (typeof name === 'string' && !(name in Object.prototype) ? make(name) : undefined),
  });
}
