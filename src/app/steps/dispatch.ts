import type { NextFunction, Request, Response } from 'express';
import { ProblemError } from '../../errors/problem.js';
import type { PrismFallback } from '../../prism/prism-fallback.js';
import type { HandlerMap } from '../operation-handler.js';
import { requestState } from '../request-state.js';
import type { Responder } from '../respond.js';

/**
 * Runs the operation: its stateful handler when a resource family registered one, otherwise
 * the configured policy for unhandled operations ('prism' answers from the contract, 'error'
 * answers 501). Either way the answer goes through the responder's contract check.
 */
export function dispatch(options: { handlers: HandlerMap; unhandled: 'prism' | 'error'; prism: PrismFallback; responder: Responder }) {
  return async function dispatchStep(req: Request, res: Response, _next: NextFunction) {
    const state = requestState(req);
    const operation = state.operation!;
    const handler = options.handlers[operation.operationId];
    if (handler) {
      const result = await handler({
        operation,
        principal: state.principal!,
        path: state.params!.path,
        query: state.params!.query,
        headers: state.params!.headers,
        body: state.body,
        requestId: state.requestId,
      });
      return options.responder.sendResult(req, res, result);
    }
    if (options.unhandled === 'error') {
      throw new ProblemError('not-implemented', { detail: `${operation.operationId} has no stateful handler and unhandled=error` });
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
    const result = await options.prism.answer(operation, { path: state.pathname, query: state.params!.query, headers, body: state.body });
    res.setHeader('X-Shipmock-Source', 'prism');
    options.responder.sendResult(req, res, result);
  };
}
