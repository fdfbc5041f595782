import express, { type Express } from 'express';
import type { ErrorStep } from '../http/types.js';
import type { MockRuntime } from '../runtime/runtime.js';
import { createAdminRouter } from './admin-router.js';
import type { ControlPlane } from './control-plane.js';
import { pageRoutes } from './pages.js';

/**
 * The control plane's Express 5 app (/__admin). Loaded by createApp on the first /__admin
 * request rather than at start: Express and its dependencies take ~190 ms to import here,
 * and the API path does not use them.
 *
 * @example const admin = createAdminApp(runtime, control, errorWriter(...)); admin(req, res);
 */
export function createAdminApp(runtime: MockRuntime, control: ControlPlane, writeError: ErrorStep): Express {
  const admin = express();
  admin.disable('x-powered-by');
  admin.disable('etag');
  admin.set('query parser', false);
  admin.use(pageRoutes({ adminKey: runtime.options.raw.adminKey, hosts: runtime.options.raw.adminHosts }));
  admin.use('/__admin', createAdminRouter(runtime, control));
  admin.use(writeError);
  return admin;
}
