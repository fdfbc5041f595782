import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { createApp } from '../app/create-app.js';
import { createRuntime } from '../runtime/runtime.js';
import type { CompanyCredentials } from '../auth/credentials.js';
import type { MockOptions } from '../config/options.js';
import { setMountContext } from '../http/request-state.js';
import type { Logger } from '../logging/logger.js';
import { createMockHandles, handlePartsOf, type MockHandles } from './mock-handles.js';

export interface MiddlewareOptions extends MockOptions {
  /** A logger to use instead of one built from logLevel/logFormat. */
  logger?: Logger;
}

/** An Express handler that serves the whole mock, with the handles of a running mock. */
export interface ShipmockMiddleware extends RequestHandler, MockHandles {
  /** The seeded default company's credentials. */
  credentials: CompanyCredentials;
  /** Stops the mock's background work (webhook retries, clock timers); the handler is unusable after. */
  close(): void;
}

/**
 * The mock as Express middleware: mounted under a prefix in your own Express 5 app, it serves
 * the whole API (and its control plane) there, with the same state, validation and scenarios
 * as `shipmock serve`. Mount it before any body parser, or after one: a body that was already
 * read off the stream is taken from `req.body`.
 *
 * @example
 * const app = express();
 * const mock = shipmockMiddleware({ seed: 1 });
 * app.use('/shipping', mock); // POST /shipping/v1/tokens/company, GET /shipping/__admin/health …
 * app.listen(3000);
 */
export function shipmockMiddleware(options: MiddlewareOptions = {}): ShipmockMiddleware {
  const runtime = createRuntime(options, options.logger);
  const { app, services, control } = createApp(runtime);
  const handler = (req: Request, res: Response, _next: NextFunction): void => {
    // Express has cut the mount path off req.url (the mock routes on what is left); problems
    // and the request log name the target as the client sent it.
    setMountContext(req, { receivedUrl: req.originalUrl, body: bodyReadBefore(req) });
    // Mounted, the mock has no port of its own: the host app's ports it is reached on are its
    // own, so a webhook never posts back into it (src/events/mock-endpoints.ts).
    runtime.webhooks.endpoints.note(req.socket?.localPort);
    app(req, res);
  };
  return Object.assign(handler, {
    credentials: runtime.credentials.defaultCompany,
    ...createMockHandles(control, handlePartsOf(runtime, services)),
    close: () => runtime.dispose(),
  });
}

/**
 * The body as bytes when a body parser in front of the mock already consumed the stream:
 * express.raw() leaves a Buffer, express.text() a string, express.json() the parsed value.
 */
function bodyReadBefore(req: Request): Buffer | undefined {
  if (!req.readableEnded || req.body === undefined) return undefined;
  const body: unknown = req.body;
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === 'string') return Buffer.from(body);
  return Buffer.from(JSON.stringify(body));
}
