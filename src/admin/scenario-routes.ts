import { Router, type Request, type Response } from 'express';
import type { RouteMatcher } from '../contract/route-matcher.js';
import { ProblemError } from '../errors/problem.js';
import { HarError } from '../recording/har.js';
import { harToScenario } from '../recording/har-to-scenario.js';
import { RecordingError, type AfterLast } from '../recording/to-scenario.js';
import { ScenarioError, type ParameterValues } from '../scenarios/scenario-file.js';
import { lineFinder } from '../scenarios/yaml-lines.js';
import { adminInput, reply, replyEmpty } from './admin-contract.js';
import type { ControlPlane } from './control-plane.js';

interface ActivationRequest {
  name?: string;
  definition?: object;
  accountId?: string;
  params?: ParameterValues;
  /** A HAR document's log: the body is a HAR. */
  log?: object;
}

/** The contract operation of a request, for the scenario a HAR becomes. */
export function operationOfRoutes(routes: RouteMatcher): (method: string, path: string) => string | undefined {
  return (method, path) => {
    const match = routes.match(method, path);
    return match.kind === 'operation' ? match.operation.operationId : undefined;
  };
}

/**
 *  GET    /scenarios          active (with hit counts) and ready-made scenarios
 *  POST   /scenarios          activate by name, inline definition (JSON) or YAML body
 *  DELETE /scenarios/:name    deactivate (all scopes, or ?account_id=)
 */
export function scenarioRoutes(control: ControlPlane, routes?: RouteMatcher): Router {
  const router = Router();
  router.get('/scenarios', (_req: Request, res: Response) => {
    reply(res, 200, { active: control.scenarios.list(), available: control.scenarios.available() });
  });
  router.post('/scenarios', (_req: Request, res: Response) => {
    const input = adminInput(res);
    const yaml = typeof input.body === 'string';
    const request: ActivationRequest = yaml ? {} : ((input.body ?? {}) as ActivationRequest);
    if (!yaml && request.log !== undefined) return activateHar(res, control, request, input.params.query, routes);
    const scenario = yaml ? (input.body as string) : (request.definition ?? request.name);
    const scopedByQuery = input.params.query.account_id as string | undefined;
    if (scopedByQuery && request.accountId) {
      throw new ProblemError('validation-error', {
        detail: 'Give the account once: accountId in the body or account_id in the query',
        violations: [{ field: 'query/account_id', message: 'must not be given with body/accountId' }],
      });
    }
    const accountId = request.accountId ?? scopedByQuery;
    if (scenario === undefined || (request.definition && request.name)) {
      throw new ProblemError('validation-error', {
        detail: 'Give exactly one of name and definition',
        violations: [{ field: 'body', message: 'needs exactly one of name and definition' }],
      });
    }
    let activation: ReturnType<ControlPlane['scenarios']['activate']>;
    try {
      activation = control.scenarios.activate(scenario, { accountId, params: request.params });
    } catch (error) {
      if (!(error instanceof ScenarioError)) throw error;
      if (error.notFound) throw new ProblemError('not-found', { detail: error.message });
      if (error.tooLarge) throw new ProblemError('payload-too-large', { detail: error.message, violations: error.violations.map((v) => ({ ...v, field: v.field.replace(/^scenario/, yaml ? 'body' : request.definition ? 'body/definition' : 'body') })) });
      const prefix = yaml ? 'body' : request.definition ? 'body/definition' : 'body';
      // A YAML body's violations also name their line, so an editor can point at it.
      const findLine = yaml ? (error.lineOf ?? lineFinder(input.body as string)) : undefined;
      const lineOf = (field: string) => findLine?.(field);
      const violations = error.violations.length
        ? error.violations.map((v) => {
            const line = lineOf(v.field);
            return { field: v.field.replace(/^scenario/, prefix), message: line ? `${v.message} (line ${line})` : v.message };
          })
        : [{ field: request.name ? 'body/name' : prefix, message: error.message }];
      throw new ProblemError('validation-error', { detail: error.message, violations });
    }
    reply(res, 201, activation);
  });
  router.delete('/scenarios/:name', (_req: Request, res: Response) => {
    const { params } = adminInput(res);
    const name = params.path.name as string;
    const accountId = params.query.account_id as string | undefined;
    if (control.scenarios.deactivate(name, accountId) === 0) {
      throw new ProblemError('not-found', { detail: `No active scenario named ${name}${accountId ? ` for account ${accountId}` : ''}` });
    }
    replyEmpty(res, 204);
  });
  return router;
}

/**
 * A HAR body (recognised by its `log` member): its exchanges become a recorded scenario, named by
 * `?name=` (default `har`), scoped by `?account_id=`. A HAR that cannot be read is a 400 naming
 * each field (`body/log/entries/3/request/url`), and nothing is activated.
 */
function activateHar(res: Response, control: ControlPlane, request: ActivationRequest, query: Record<string, unknown>, routes: RouteMatcher | undefined): void {
  const extra = Object.keys(request).filter((k) => k !== 'log');
  if (extra.length) {
    throw new ProblemError('validation-error', {
      detail: 'A HAR body is the HAR document alone: name and scope it with the name and account_id query parameters',
      violations: extra.map((k) => ({ field: `body/${k}`, message: 'must not be given with a HAR (log); use the query parameters' })),
    });
  }
  const name = (query.name as string | undefined) ?? 'har';
  let converted: ReturnType<typeof harToScenario>;
  try {
    converted = harToScenario(request, { name, source: 'POST /__admin/scenarios (HAR)', operationOf: routes ? operationOfRoutes(routes) : undefined, afterLast: query.after_last as AfterLast | undefined });
  } catch (error) {
    if (error instanceof HarError || error instanceof RecordingError) {
      const violations = error.violations.length ? error.violations.map((v) => ({ field: v.field.replace(/^(har|exchanges)/, 'body'), message: v.message })) : [{ field: 'body/log', message: error.message }];
      throw new ProblemError('validation-error', { detail: error.message, violations });
    }
    throw error;
  }
  let activation: ReturnType<ControlPlane['scenarios']['activate']>;
  try {
    activation = control.scenarios.activate(converted.scenario, { accountId: query.account_id as string | undefined });
  } catch (error) {
    if (!(error instanceof ScenarioError)) throw error;
    throw new ProblemError(error.tooLarge ? 'payload-too-large' : 'validation-error', { detail: `The HAR's scenario cannot be activated: ${error.message}`, violations: error.violations.map((v) => ({ ...v, field: v.field.replace(/^scenario/, 'body') })) });
  }
  reply(res, 201, { ...activation, skipped: converted.skipped });
}
