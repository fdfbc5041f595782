import type { PactFile, PactInteraction } from '../verify/pact-files.js';

export interface BrokerOptions {
  /** Base URL of the Pact Broker or PactFlow. */
  url: string;
  provider: string;
  /** Bearer token (PactFlow); sent on every request when given. */
  token?: string;
  /** Per-request timeout (default 5 s): an unreachable broker fails fast, never hangs CI. */
  timeoutMs?: number;
}

/** A broker that cannot be asked (unreachable, refusing, answering nonsense): a usage/input error (exit 2). */
export class BrokerError extends Error {}

interface HalLink {
  href?: string;
  name?: string;
  title?: string;
}

/** Why a fetch failed, in a few words: the system error code where there is one. */
function causeOf(error: unknown): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'no answer in time';
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(error);
}

async function getJson(url: string, options: BrokerOptions): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { Accept: 'application/hal+json, application/json', ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}) },
      signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
      redirect: 'follow',
    });
  } catch (error) {
    throw new BrokerError(`cannot reach the Pact Broker at ${url}: ${causeOf(error)}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    const hint = response.status === 401 || response.status === 403 ? ' (check --broker-token / PACT_BROKER_TOKEN)' : response.status === 404 ? ' (unknown provider?)' : '';
    throw new BrokerError(`the Pact Broker at ${url} answered ${response.status} ${response.statusText}${hint}`);
  }
  try {
    return await response.json();
  } catch (error) {
    throw new BrokerError(`the Pact Broker at ${url} answered something that is not JSON: ${causeOf(error)}`);
  }
}

/**
 * The latest pact of every consumer of a provider, from a Pact Broker:
 * `GET /pacts/provider/{provider}/latest` (HAL, `_links['pb:pacts']`), then each pact.
 *
 * @example const pacts = await fetchPactsFromBroker({ url: 'https://broker.example.com', provider: 'ShippingPlatformAPI', token });
 */
export async function fetchPactsFromBroker(options: BrokerOptions): Promise<PactFile[]> {
  const base = options.url.replace(/\/+$/, '');
  const indexUrl = `${base}/pacts/provider/${encodeURIComponent(options.provider)}/latest`;
  const index = (await getJson(indexUrl, options)) as { _links?: Record<string, HalLink[] | HalLink | undefined> };
  const links = index?._links?.['pb:pacts'] ?? index?._links?.pacts;
  if (!Array.isArray(links)) throw new BrokerError(`the Pact Broker at ${indexUrl} answered without _links['pb:pacts']`);
  const pacts: PactFile[] = [];
  for (const link of links) {
    if (!link.href) continue;
    const href = new URL(link.href, `${base}/`).toString();
    const raw = (await getJson(href, options)) as Record<string, unknown> & { consumer?: { name?: string }; provider?: { name?: string }; interactions?: unknown[]; messages?: unknown[] };
    pacts.push({
      path: href,
      consumer: String(raw.consumer?.name ?? link.name ?? ''),
      provider: String(raw.provider?.name ?? options.provider),
      interactions: (raw.interactions ?? raw.messages ?? []) as PactInteraction[],
      raw,
    });
  }
  return pacts;
}
