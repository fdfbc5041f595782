import { fileURLToPath } from 'node:url';
import type { NextFunction, Request, Response } from 'express';
import { loadCompiledContract } from '../contract/compiled-contract.js';
import type { Contract, ContractOperation } from '../contract/load-contract.js';
import { createRouteMatcher, type RouteMatcher } from '../contract/route-matcher.js';
import { createValidators, type ContractValidators, type ParsedParameters } from '../contract/validators.js';
import { ProblemError, type Violation } from '../errors/problem.js';
import type { Logger } from '../logging/logger.js';
import { parseJsonBody, queryObject, readBody } from '../app/read-request.js';
import { requestState } from '../app/request-state.js';
import { refuseBrowser } from './admin-access.js';

/** contract/admin.yaml: the control plane's own OpenAPI document. */
export const ADMIN_CONTRACT_PATH = fileURLToPath(new URL('../../contract/admin.yaml', import.meta.url));

export interface AdminContract {
  contract: Contract;
  validators: ContractValidators;
  routes: RouteMatcher;
  /** Operations whose handlers check their own input (x-shipmock-request-validation: handler). */
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

/** @example const admin = loadAdminContract(); admin.routes.match('GET', '/__admin/clock') */
export function loadAdminContract(): AdminContract {
  const { contract, schemas } = loadCompiledContract(ADMIN_CONTRACT_PATH);
  const handlerValidated = new Set<string>();
  const secretAnswers = new Set<string>();
  for (const item of Object.values<any>(contract.document.paths ?? {})) {
    for (const op of Object.values<any>(item)) {
      if (op && typeof op === 'object' && op['x-shipmock-request-validation'] === 'handler') handlerValidated.add(op.operationId);
      if (op && typeof op === 'object' && op['x-shipmock-answers-secrets'] === true) secretAnswers.add(op.operationId);
    }
  }
  return { contract, validators: createValidators(contract, schemas), routes: createRouteMatcher(contract.operations), handlerValidated, secretAnswers };
}

export function adminInput(res: Response): AdminInput {
  const input = res.locals.adminInput as AdminInput | undefined;
  if (!input) throw new Error('control-plane input read before the admin contract step');
  return input;
}

/**
 * The control plane is held to its contract like the API: unknown paths are 404, unknown
 * methods 405; parameters and JSON bodies are validated (400 with violations) unless the
 * operation's handler checks its own input; every JSON answer is checked against the declared
 * response and, with response validation 'error', replaced by a 500 problem when it breaks it.
 * Bodies are held to the API's body limit (413); operations marked x-shipmock-answers-secrets
 * refuse browsers (admin-access.ts, refuseBrowser).
 */
export function adminContractCheck(options: { admin: AdminContract; responseValidation: 'error' | 'warn' | 'off'; logger: Logger; bodyLimit: number }) {
  const { admin } = options;
  return async function adminContractStep(req: Request, res: Response, next: NextFunction) {
    const path = requestState(req).pathname;
    const match = admin.routes.match(req.method, path);
    if (match.kind === 'not-found') throw new ProblemError('route-not-found', { detail: `The control plane has no ${path}; see contract/admin.yaml` });
    if (match.kind === 'method-not-allowed') {
      throw new ProblemError('method-not-allowed', {
        detail: `${req.method} is not declared for ${path}; allowed: ${match.allowed.join(', ')}`,
        headers: { Allow: match.allowed.join(', ') },
      });
    }
    const { operation } = match;
    if (admin.secretAnswers.has(operation.operationId)) refuseBrowser(req, `${req.method} ${path}`);
    checkJsonAnswers(req, res, operation, options);
    if (admin.handlerValidated.has(operation.operationId)) return next();

    const validators = admin.validators.forOperation(operation.operationId);
    const params: ParsedParameters = { path: match.pathParams, query: queryObject(requestState(req).search), headers: {} };
    const violations: Violation[] = validators.parameters(params);
    const input: AdminInput = { operation, params };
    if (operation.requestBody) {
      const raw = await readBody(req, options.bodyLimit);
      if (raw.length === 0) {
        if (operation.requestBody.required) violations.push({ field: 'body', message: 'is required' });
      } else {
        const mediaType = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
        input.mediaType = mediaType;
        if (mediaType === 'application/json') {
          // Depth only: a state import legitimately holds many thousands of values.
          input.body = parseJsonBody(raw, { keys: Infinity, values: Infinity });
          violations.push(...(validators.body?.(input.body, raw.length) ?? []));
        } else if (operation.requestBody.mediaTypes.includes(mediaType)) {
          input.body = raw.toString('utf8');
        } else {
          throw new ProblemError('unsupported-media-type', { detail: `Send the body as ${operation.requestBody.mediaTypes.join(' or ')} (got ${mediaType || 'no Content-Type'})` });
        }
      }
    }
    if (violations.length) {
      throw new ProblemError('validation-error', {
        detail: `${violations.length} field${violations.length === 1 ? '' : 's'} failed validation: ${violations.map((v) => `${v.field} ${v.message}`).join('; ')}`,
        violations,
      });
    }
    res.locals.adminInput = input;
    next();
  };
}

function checkJsonAnswers(req: Request, res: Response, operation: ContractOperation, options: { admin: AdminContract; responseValidation: 'error' | 'warn' | 'off'; logger: Logger }): void {
  if (options.responseValidation === 'off') return;
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    // JSON round trip: undefined members vanish on the wire and must vanish before validation too.
    const wire = body === undefined ? undefined : JSON.parse(JSON.stringify(body));
    const found = options.admin.validators.forOperation(operation.operationId).response(res.statusCode, 'application/json', wire);
    const violations = found ?? [{ field: 'status', message: `${res.statusCode} application/json is not declared for ${operation.operationId}` }];
    if (violations.length === 0) return json(body);
    const detail = `${operation.operationId} answered outside contract/admin.yaml`;
    if (options.responseValidation === 'warn') {
      options.logger.warn({ operationId: operation.operationId, violations }, detail);
      return json(body);
    }
    options.logger.error({ operationId: operation.operationId, violations }, detail);
    const problem = new ProblemError('response-validation-failed', { detail, violations }).toBody(req.originalUrl);
    requestState(req).problem = problem.type;
    res.status(500).setHeader('Content-Type', 'application/problem+json');
    res.end(JSON.stringify(problem));
    return res;
  };
}

