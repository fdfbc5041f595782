import type { NextFunction, Request, Response } from 'express';
import type { ContractValidators } from '../../contract/validators.js';
import { ProblemError, type Violation } from '../../errors/problem.js';
import { drain, parseJsonBody, queryObject, readBody } from '../read-request.js';
import { requestState } from '../request-state.js';

export interface ValidateRequestOptions {
  validators: ContractValidators;
  bodyLimit: number;
  /**
   * Rewrites input before it is validated, for accepted spellings the contract does not list
   * (e.g. the SHIPMENT_BOOKING_EVENT topic alias; src/events/topic-aliases.ts).
   */
  normalizeInput?: (operationId: string, part: 'query' | 'body', value: unknown) => unknown;
}

/**
 * Validates parameters and body against the operation's schemas (compiled once at start).
 * Bodies are read here, after routing and auth, so a 404 or 401 never reads an upload.
 * Every failing field is named in `properties.violations`; nothing reaches a handler unchecked.
 */
export function validateRequest(options: ValidateRequestOptions) {
  return async function validateRequestStep(req: Request, _res: Response, next: NextFunction) {
    const state = requestState(req);
    const operation = state.operation!;
    const validators = options.validators.forOperation(operation.operationId);
    const params = state.params!;
    params.query = queryObject(state.search);
    if (options.normalizeInput) params.query = options.normalizeInput(operation.operationId, 'query', params.query) as Record<string, unknown>;
    for (const p of operation.parameters) {
      if (p.in === 'header' && req.headers[p.name] !== undefined) params.headers[p.name] = req.headers[p.name];
    }
    const violations: Violation[] = validators.parameters(params);

    const spec = operation.requestBody;
    if (spec) {
      const raw = await readBody(req, options.bodyLimit);
      if (raw.length === 0) {
        if (spec.required) violations.push({ field: 'body', message: 'is required' });
      } else {
        const contentType = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
        if (!isJson(contentType)) {
          throw new ProblemError('unsupported-media-type', {
            detail: `Send the body as application/json (got ${contentType || 'no Content-Type'})`,
          });
        }
        let body = parseJsonBody(raw);
        if (options.normalizeInput) body = options.normalizeInput(operation.operationId, 'body', body);
        violations.push(...(validators.body?.(body, raw.length) ?? []));
        state.body = body;
      }
    } else {
      await drain(req);
    }
    if (violations.length) {
      // The token endpoints' grant type has its own problem (OAuth 2.0 unsupported_grant_type).
      const slug = violations.every((v) => v.field === 'body/grantType') ? 'invalid-grant' : 'validation-error';
      throw new ProblemError(slug, {
        detail: `${violations.length} field${violations.length === 1 ? '' : 's'} failed validation: ${violations.map((v) => `${v.field} ${v.message}`).join('; ')}`,
        violations,
      });
    }
    next();
  };
}

function isJson(contentType: string): boolean {
  return contentType === 'application/json' || (contentType.startsWith('application/') && contentType.endsWith('+json'));
}

