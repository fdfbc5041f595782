import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The API's HTTP model: node's own request and response, which is all the pipeline steps use,
 * plus the per-request state kept beside them (request-state.ts). Express' `req`/`res` extend
 * these classes, so the same steps run unchanged when the mock is mounted in an Express app
 * (src/server/express-middleware.ts) — and nothing below src/admin needs Express' types.
 */
export type ApiRequest = IncomingMessage;
export type ApiResponse = ServerResponse;

/** Hands the request to the next step; with an error, to the error writer instead. */
export type Next = (error?: unknown) => void;

/** A pipeline step: sync or async; a thrown error or rejected promise goes to `next(error)`. */
export type Step = (req: ApiRequest, res: ApiResponse, next: Next) => void | Promise<void>;

/** The last step: turns any error into an answer. */
export type ErrorStep = (error: unknown, req: ApiRequest, res: ApiResponse, next: Next) => void;

/**
 * An answer composed but not yet written. Steps and handlers compose answers as values; only
 * the responder (src/app/respond.ts) writes them, after deciding their headers and applying the
 * scenario effects that act on answers (strict validation, a damaged or dropped answer).
 */
export interface Answer {
  status: number;
  /** Undefined for an answer without a body. */
  contentType?: string;
  payload?: Buffer | string;
  /** The JSON value `payload` was serialised from, when there is one (saves re-parsing it). */
  json?: unknown;
  /** Headers of this answer only (Location, ETag, Retry-After, Allow, …). */
  headers?: Record<string, string>;
}
