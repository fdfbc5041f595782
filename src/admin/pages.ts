import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { ProblemError } from '../errors/problem.js';
import { requestState } from '../http/request-state.js';
import { checkPageAccess } from './admin-access.js';

// From src/admin (tests) and dist/admin (the package) alike: both are two levels below the root.
export const INSPECTOR_DIR = fileURLToPath(new URL('../../dist/ui/', import.meta.url));
export const DOCS_DIR = fileURLToPath(new URL('../../dist/docs/', import.meta.url));

/** Vite names built assets by content hash: they never change, so browsers may keep them. */
const HASHED_ASSET = /[.-][A-Za-z0-9_-]{8,}\.(js|css|woff2?|png|svg)$/;

function staticFiles(dir: string, what: string) {
  const serve = express.static(dir, {
    index: 'index.html',
    // Express answers HEAD and GET; anything else falls through to the 405 below.
    fallthrough: true,
    setHeaders(res, path) {
      res.setHeader('Cache-Control', HASHED_ASSET.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      // The pages load nothing from elsewhere and may not be framed by other sites.
      res.setHeader('Content-Security-Policy', "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; frame-src 'self' blob:; object-src 'self' blob:; frame-ancestors 'self'");
    },
  });
  return (req: Request, res: Response, next: NextFunction) => {
    if (!existsSync(dir)) throw new ProblemError('not-found', { detail: `The ${what} is not built: run npm run build` });
    serve(req, res, next);
  };
}

/**
 * The mock's pages, served from the package's dist/ as static files (built by `npm run build`,
 * nothing from a CDN):
 *   GET /                → 302 to the inspector
 *   GET /__admin/ui/     the inspector (same access as the control plane: loopback, or any
 *                        caller when an admin key is set — the page then asks for the key)
 *   GET /docs/           the API reference (Swagger UI over /openapi.json)
 */
export function pageRoutes(options: { adminKey?: string; hosts?: string[] }): Router {
  const router = Router();
  router.get('/', (req: Request, res: Response) => {
    // Relative, so a mock mounted under a prefix (shipmockMiddleware) redirects inside it.
    res.redirect(302, `./__admin/ui/${requestState(req).search.size ? `?${requestState(req).search}` : ''}`);
  });
  router.use('/__admin/ui', (req, _res, next) => {
    checkPageAccess(req, options);
    next();
  }, staticFiles(INSPECTOR_DIR, 'inspector'));
  router.use('/docs', staticFiles(DOCS_DIR, 'API reference'));
  router.all(['/', '/docs', '/docs/{*rest}', '/__admin/ui', '/__admin/ui/{*rest}'], (req: Request) => {
    const method = requestState(req).method;
    if (method === 'GET' || method === 'HEAD') throw new ProblemError('not-found', { detail: `No page at ${requestState(req).pathname}` });
    throw new ProblemError('method-not-allowed', { detail: `${method} is not allowed for pages; allowed: GET, HEAD`, headers: { Allow: 'GET, HEAD' } });
  });
  return router;
}
