import type { components } from './schema.js';

export type Problem = components['schemas']['Problem'];

/**
 * A failure the client cannot hand back as `{ error }` (a token request that failed): carries the
 * HTTP status and the RFC 7807 problem body when the server sent one.
 *
 * @example
 * try { await client.tokens.token({ level: 'COMPANY' }); }
 * catch (e) { if (e instanceof ShippingApiError && e.status === 401) console.error(e.problem?.detail); }
 */
export class ShippingApiError extends Error {
  readonly status: number;
  readonly problem?: Problem;

  constructor(message: string, status: number, problem?: Problem) {
    super(problem?.detail ? `${message}: ${problem.detail}` : message);
    this.name = 'ShippingApiError';
    this.status = status;
    this.problem = problem;
  }
}

/** Reads a problem+json body; undefined when the body is not one (the caller still has the status). */
export async function readProblem(response: Response): Promise<Problem | undefined> {
  try {
    const body = (await response.json()) as Problem;
    return body && typeof body === 'object' && typeof body.status === 'number' ? body : undefined;
  } catch {
    return undefined;
  }
}
