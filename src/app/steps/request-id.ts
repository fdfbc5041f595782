import type { Logger } from '../../logging/logger.js';
import { initRequestState, mountContextOf } from '../../http/request-state.js';
import type { ApiRequest, ApiResponse, Next } from '../../http/types.js';

/**
 * First step: gives the request an id (X-Request-Id, echoed when the client sent one), splits
 * the URL once, and logs the outcome when the response finishes.
 */
export function requestId(options: { logger: Logger; now: () => number }) {
  let counter = 0;
  const prefix = Date.now().toString(36);
  return function requestIdStep(req: ApiRequest, res: ApiResponse, next: Next) {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : `${prefix}-${(++counter).toString(36)}`;
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const mount = mountContextOf(req);
    const state = initRequestState(req, {
      requestId: id,
      startedAt: performance.now(),
      method: req.method ?? 'GET',
      url: mount?.receivedUrl ?? url,
      preReadBody: mount?.body,
      pathname: q === -1 ? url : url.slice(0, q),
      search: new URLSearchParams(q === -1 ? '' : url.slice(q + 1)),
    });
    res.setHeader('X-Request-Id', id);
    if (options.logger.isLevelEnabled('info')) {
      res.once('finish', () => {
        options.logger.info(
          {
            requestId: id,
            status: res.statusCode,
            ms: Math.round((performance.now() - state.startedAt) * 10) / 10,
            ...(state.operation ? { operationId: state.operation.operationId } : {}),
            ...(state.problem ? { problem: state.problem } : {}),
          },
          `${state.method} ${state.url}`,
        );
      });
    }
    next();
  };
}
