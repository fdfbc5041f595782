import { Router, type Request, type Response } from 'express';
import { ProblemError } from '../errors/problem.js';
import { adminInput, reply } from './admin-contract.js';
import type { ControlPlane, NewCompany } from './control-plane.js';

/**
 *  GET  /credentials   companies, affiliates and admins with their client credentials
 *  POST /companies     a new company (fields optional, generated when missing)
 */
export function credentialRoutes(control: ControlPlane): Router {
  const router = Router();
  router.get('/credentials', (_req: Request, res: Response) => {
    reply(res, 200, control.credentials.list());
  });
  router.post('/companies', (_req: Request, res: Response) => {
    const body = (adminInput(res).body ?? {}) as NewCompany;
    let company: ReturnType<ControlPlane['credentials']['addCompany']>;
    try {
      company = control.credentials.addCompany(body);
    } catch (error) {
      const field = (error as Error).message.startsWith('clientId') ? 'body/clientId' : 'body/companyId';
      throw new ProblemError('validation-error', { detail: (error as Error).message, violations: [{ field, message: (error as Error).message }] });
    }
    reply(res, 201, company);
  });
  return router;
}
