import { fileURLToPath } from 'node:url';
import type { NextFunction, Request, Response } from 'express';
import { loadCompiledContract } from '../contract/compiled-contract.js';
import { createContractGate, type ContractGate } from '../contract/gate.js';
import type { ContractOperation } from '../contract/load-contract.js';
import { createRouteMatcher } from '../contract/route-matcher.js';
import { createValidators, type ParsedParameters } from '../contract/validators.js';
import { ProblemError, type Violation } from '../errors/problem.js';
import { queryObject, readBody } from '../http/read-request.js';
import { requestState } from '../http/request-state.js';
import type { Logger } from '../logging/logger.js';
import { refuseBrowser } from './admin-access.js';

/** contract/admin.yaml: the control plane's own OpenAPI document. */
export const ADMIN_CONTRACT_PATH = fileURLToPath(new URL('../../contract/admin.yaml', import.meta.url));

export interface AdminContract {
  /** The same gate the API uses, over contract/admin.yaml. */
  gate: ContractGate;
  /**
   * Operations whose handlers check their own query and path parameters
   * (x-shipmock-request-validation: handler). Bodies are never theirs to check: every body is
   * held to admin.yaml before any handler runs.
   */
  handlerValidated: Set<string>;
  /** Operations whose answers carry client secrets or tokens (x-shipmock-answers-secrets: true). */
  secretAnswers: Set<string>;
}

/** What the contract step parsed and checked for a control-plane handler. */
export interface AdminInput {
  operation: ContractOperation;
  params: ParsedParameters;
  /** Parsed JSON body, or the raw text of a YAML body. */
  body?: unknown;
  mediaType?: string;
}

/** How a control-plane handler answers: through the contract check (reply, replyEmpty, replyBytes, openEventStream). */
interface AdminAnswerer {
  answer(res: Response, status: number, body?: unknown): void;
  /** Checks a non-JSON answer's status and media type against the declared responses (and a JSON one's body, when given). */
  check(status: number, mediaType: string, body?: unknown): void;
  /** Violations of one value against a schema of admin.yaml, reported like a response's (logged; dropped in 'error' mode). */
  conforms(pointer: string, value: unknown): boolean;
  /** The same for a value as the whole answer of this status and media type. */
  answerConforms(status: number, mediaType: string, value: unknown): boolean;
}

/** @example const admin = loadAdminContract(); admin.gate.route('GET', '/__admin/clock') */
export function loadAdminContract(): AdminContract {
  const { contract, schemas } = loadCompiledContract(ADMIN_CONTRACT_PATH);
  const handlerValidated = new Set<string>();
  const secretAnswers = new Set<string>();
  for (const item of Object.values<Record<string, unknown>>(contract.document.paths ?? {})) {
    for (const op of Object.values(item)) {
      if (!op || typeof op !== 'object') continue;
      const node = op as Record<string, unknown>;
      if (node['x-shipmock-request-validation'] === 'handler') handlerValidated.add(String(node.operationId));
      if (node['x-shipmock-answers-secrets'] === true) secretAnswers.add(String(node.operationId));
    }
  }
  const gate = createContractGate({
    contract,
    validators: createValidators(contract, schemas),
    routes: createRouteMatcher(contract.operations),
    notFoundDetail: (_method, path) => `The control plane has no ${path}; see contract/admin.yaml`,
  });
  return { gate, handlerValidated, secretAnswers };
}

export function adminInput(res: Response): AdminInput {
  const input = res.locals.adminInput as AdminInput | undefined;
  if (!input) throw new Error('control-plane input read before the admin contract step');
  return input;
}

/** Answers a control-plane request with JSON, checked against contract/admin.yaml first. */
export function reply(res: Response, status: number, body: unknown): void {
  answererOf(res).answer(res, status, body);
}

/** Answers a control-plane request without a body (204), checked against contract/admin.yaml. */
export function replyEmpty(res: Response, status = 204): void {
  answererOf(res).answer(res, status);
}

/** Answers bytes (a document) with their media type, after checking status and media type against the contract. */
export function replyBytes(res: Response, status: number, mediaType: string, bytes: Buffer, headers: Record<string, string> = {}): void {
  answererOf(res).check(status, mediaType);
  res.status(status).set({ ...headers, 'Content-Type': mediaType, 'Content-Length': String(bytes.length) }).end(bytes);
}

export interface EventStream {
  /** Sends one event whose data is checked against `schema` (a pointer into admin.yaml) first; false when dropped. */
  send(event: string, data: unknown, id?: string): boolean;
  /** A comment line: keeps proxies and the browser from timing the stream out. */
  heartbeat(): void;
}

/**
 * Opens a server-sent event stream (text/event-stream, declared in admin.yaml) whose every event
 * is checked against `schema` before it is written, as a JSON answer would be.
 */
export function openEventStream(res: Response, schema: string): EventStream {
  const answerer = answererOf(res);
  answerer.check(200, 'text/event-stream');
  res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
  res.write('retry: 2000\n\n');
  return {
    send(event, data, id) {
      if (!answerer.conforms(schema, data)) return false;
      res.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      return true;
    },
    heartbeat: () => void res.write(': keep-alive\n\n'),
  };
}

export interface CheckedStream {
  /** Whether a value conforms as the whole answer would (reported like a response's violation; false: leave it out). */
  conforms(value: unknown): boolean;
  /** Writes a chunk; resolves once the socket can take more (backpressure), so a long answer never piles up in memory. */
  write(chunk: string): Promise<void>;
  end(): void;
}

/**
 * Opens a long answer written piece by piece (GET /__admin/journal.har), after checking its
 * status, media type and `envelope` (the document without its streamed items) against
 * admin.yaml; `conforms` checks each item against a schema of admin.yaml, as openEventStream
 * does for events.
 */
export function openCheckedStream(res: Response, status: number, mediaType: string, envelope: unknown, headers: Record<string, string> = {}): CheckedStream {
  const answerer = answererOf(res);
  answerer.check(status, mediaType, envelope);
  res.writeHead(status, { ...headers, 'Content-Type': mediaType });
  return {
    conforms: (value) => answerer.answerConforms(status, mediaType, value),
    write: (chunk) =>
      new Promise((resolve) => {
        if (res.destroyed || res.write(chunk)) return resolve();
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      }),
    end: () => void res.end(),
  };
}

function answererOf(res: Response): AdminAnswerer {
  const answerer = res.locals.adminAnswerer as AdminAnswerer | undefined;
  if (!answerer) throw new Error('control-plane answer before the admin contract step');
  return answerer;
}

interface AdminContractOptions {
  admin: AdminContract;
  responseValidation: 'error' | 'warn' | 'off';
  logger: Logger;
  bodyLimit: number;
}

/**
 * The control plane is held to its contract like the API, by the same gate: unknown paths are
 * 404, unknown methods 405; every request body is read here and validated against the
 * operation's requestBody in admin.yaml (400 with violations; a body sent to an operation that
 * declares none is refused too) before any handler runs, so no route can skip its schema — a
 * handler only ever sees the checked body (adminInput). Parameters are validated too, except
 * those of operations whose handler checks its own (x-shipmock-request-validation: handler).
 * Every answer a handler gives through `reply` is checked against the declared response and,
 * with response validation 'error', replaced by a 500 problem when it breaks it. Bodies are
 * held to the API's body limit (413); operations marked x-shipmock-answers-secrets refuse
 * browsers (admin-access.ts, refuseBrowser).
 */
export function adminContractCheck(options: AdminContractOptions) {
  const { gate } = options.admin;
  return async function adminContractStep(req: Request, res: Response, next: NextFunction) {
    const state = requestState(req);
    const { operation, pathParams } = gate.route(state.method, state.pathname);
    if (options.admin.secretAnswers.has(operation.operationId)) refuseBrowser(req, `${state.method} ${state.pathname}`);
    res.locals.adminAnswerer = answerer(operation, options);

    // Every operation's body is read here, whatever its handler: one that declares none takes none.
    const body = req.readableEnded ? (state.preReadBody ?? Buffer.alloc(0)) : await readBody(req, options.bodyLimit, state.preReadBody);
    if (!operation.requestBody && body.length > 0) {
      const message = 'must be empty: this operation takes no body (contract/admin.yaml)';
      throw new ProblemError('validation-error', { detail: `body ${message}`, violations: [{ field: 'body', message }] });
    }
    // Depth only: a state import legitimately holds many thousands of values.
    const checked = gate.checkRequest(operation, { pathParams, query: queryObject(state.search), headers: req.headers, body }, { jsonLimits: { keys: Infinity, values: Infinity } });
    // A handler that checks its own parameters (unknown and repeated ones included) gets them raw; its body is checked all the same.
    const own = options.admin.handlerValidated.has(operation.operationId);
    const violations = own ? checked.violations.filter((v) => !/^(path|query|header)(\/|$)/.test(v.field)) : checked.violations;
    const problem = gate.requestProblem({ ...checked, violations });
    if (problem) throw problem;
    const input: AdminInput = { operation, params: checked.params, body: checked.body, mediaType: checked.mediaType };
    res.locals.adminInput = input;
    next();
  };
}

function answerer(operation: ContractOperation, options: AdminContractOptions): AdminAnswerer {
  const { gate } = options.admin;
  const report = (violations: Violation[], detail: string) => {
    if (options.responseValidation === 'error') {
      options.logger.error({ operationId: operation.operationId, violations }, detail);
      throw new ProblemError('response-validation-failed', { detail, violations });
    }
    options.logger.warn({ operationId: operation.operationId, violations }, detail);
  };
  return {
    check(status, mediaType, body) {
      if (options.responseValidation === 'off') return;
      const { violations } = gate.checkAnswer(operation.operationId, { status, mediaType, body });
      if (violations.length) report(violations, `${operation.operationId} answered outside contract/admin.yaml`);
    },
    conforms(pointer, value) {
      if (options.responseValidation === 'off') return true;
      const violations = gate.validators.validate(pointer, JSON.parse(JSON.stringify(value)));
      if (!violations.length) return true;
      const detail = `${operation.operationId} streamed an event outside contract/admin.yaml`;
      options.logger[options.responseValidation === 'error' ? 'error' : 'warn']({ operationId: operation.operationId, violations }, detail);
      return options.responseValidation !== 'error';
    },
    answerConforms(status, mediaType, value) {
      if (options.responseValidation === 'off') return true;
      const { violations } = gate.checkAnswer(operation.operationId, { status, mediaType, body: JSON.parse(JSON.stringify(value)) });
      if (!violations.length) return true;
      const detail = `${operation.operationId} streamed a part outside contract/admin.yaml`;
      options.logger[options.responseValidation === 'error' ? 'error' : 'warn']({ operationId: operation.operationId, violations }, detail);
      return options.responseValidation !== 'error';
    },
    answer(res, status, body) {
      if (options.responseValidation !== 'off') {
        // JSON round trip: undefined members vanish on the wire and must vanish before validation too.
        const wire = body === undefined ? undefined : JSON.parse(JSON.stringify(body));
        const { violations } = gate.checkAnswer(operation.operationId, { status, mediaType: body === undefined ? undefined : 'application/json', body: wire });
        if (violations.length) {
          const detail = `${operation.operationId} answered outside contract/admin.yaml`;
          if (options.responseValidation === 'error') {
            options.logger.error({ operationId: operation.operationId, violations }, detail);
            throw new ProblemError('response-validation-failed', { detail, violations });
          }
          options.logger.warn({ operationId: operation.operationId, violations }, detail);
        }
      }
      if (body === undefined) {
        res.status(status).end();
        return;
      }
      res.status(status).json(body);
    },
  };
}
