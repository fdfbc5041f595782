import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import expressStaticGzip from 'express-static-gzip';
import { ProblemError } from '../errors/problem.js';
import { requestState } from '../http/request-state.js';
import { checkPageAccess } from './admin-access.js';

// From src/admin (tests) and dist/admin (the package) alike: both are two levels below the root.
export const INSPECTOR_DIR = fileURLToPath(new URL('../../dist/ui/', import.meta.url));
export const DOCS_DIR = fileURLToPath(new URL('../../dist/docs/', import.meta.url));

/** Vite names built assets by content hash: they never change, so browsers may keep them (compressed forms too). */
const HASHED_ASSET = /[.-][A-Za-z0-9_-]{8,}\.(js|css|woff2?|png|svg)(\.br|\.gz)?$/;

/**
 * The files of a built page. Text files go out compressed when the browser accepts it: the build
 * writes FILE.br and FILE.gz beside each (scripts/build-ui.mjs), express-static-gzip picks one by
 * Accept-Encoding (brotli first) and sends it with Content-Encoding and Vary: Accept-Encoding.
 */
function staticFiles(dir: string, what: string) {
  // Made on first use: it lists the folder once, which exists only after `npm run build`.
  let serve: RequestHandler | undefined;
  const create = (): RequestHandler =>
    expressStaticGzip(dir, {
      enableBrotli: true,
      orderPreference: ['br', 'gzip'],
      index: 'index.html',
      serveStatic: {
        // Express answers HEAD and GET; anything else falls through to the 405 below.
        fallthrough: true,
        setHeaders(res, path) {
          res.setHeader('Cache-Control', HASHED_ASSET.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
          res.setHeader('X-Content-Type-Options', 'nosniff');
          // The pages load nothing from elsewhere and may not be framed by other sites.
          res.setHeader('Content-Security-Policy', "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; frame-src 'self' blob:; object-src 'self' blob:; frame-ancestors 'self'");
        },
      },
    }) as RequestHandler;
  return (req: Request, res: Response, next: NextFunction) => {
    if (!existsSync(dir)) throw new ProblemError('not-found', { detail: `The ${what} is not built: run npm run build` });
    // A path that does not decode (%E0%A4%A) names no file: a 404 problem, not the router's URIError (a 500).
    if (!decodes(req.path)) throw new ProblemError('not-found', { detail: `No page at ${requestState(req).pathname}` });
    serve ??= create();
    // It sets Content-Encoding before serve-static looks for the file; when nothing is sent (a
    // POST, a folder) the problem written next must not claim an encoding.
    return serve(req, res, (error?: unknown) => {
      if (!res.headersSent) for (const name of ['Content-Encoding', 'Content-Type']) res.removeHeader(name);
      next(error);
    });
  };
}

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
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
