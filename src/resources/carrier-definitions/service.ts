import type { DomainDeps, ResourceDeps } from '../shared/domain-deps.js';
import { ProblemError, type Violation } from '../../errors/problem.js';
import { createAccountResources } from '../shared/account-resources.js';
import { duplicateSettingKeys } from '../shared/settings.js';
import { effectiveMode, type CarrierDefinition, type CarrierDefinitionInput, type CarrierDefinitionPage } from './model.js';

export const CARRIER_DEFINITIONS = 'carrier-definitions';

/** What the carrier-definition rules need to know about the definitions that point at one. */
export interface CarrierDefinitionReferences {
  /** Ids of Service Definitions of the account that reference the Carrier Definition. */
  serviceDefinitionsOf(accountId: string, carrierDefinitionId: string): string[];
}

export interface CarrierDefinitionFilter {
  group?: string;
  carrierId?: string;
  mode?: CarrierDefinition['mode'];
}

function violationsProblem(violations: Violation[]): ProblemError | undefined {
  if (!violations.length) return undefined;
  return new ProblemError('rule-violation', { detail: violations.map((v) => `${v.field} ${v.message}`).join('; '), violations });
}

/** Group filter: exact match; an empty `group` matches the definitions that have none. */
export function filterOf(filter: CarrierDefinitionFilter): ((d: CarrierDefinition) => boolean) | undefined {
  const { group, carrierId, mode } = filter;
  if (group === undefined && carrierId === undefined && mode === undefined) return undefined;
  return (d) =>
    (group === undefined || (d.group ?? '') === group) &&
    (carrierId === undefined || d.carrierId === carrierId) &&
    (mode === undefined || d.mode === mode);
}

/**
 * Carrier Definitions: one store per account, served by both v0 (page/size) and v1 (cursor).
 * Rules (contract/DECISIONS.md "Carrier definitions, service definitions, shipment channels"):
 * carrierId must be a catalogue Carrier, setting keys are unique, mode defaults to STAGING and
 * only moves STAGING → PRODUCTION, a definition referenced by Service Definitions can neither
 * be deleted nor switched to another carrier. Events: CARRIER_DEFINITION CREATED/UPDATED/DELETED.
 *
 * @example
 * const definitions = createCarrierDefinitionService(runtime, { serviceDefinitionsOf: () => [] });
 * definitions.create(accountId, { carrierId, name: 'DHL main' }).mode // 'STAGING'
 */
export function createCarrierDefinitionService(core: ResourceDeps & Pick<DomainDeps, 'catalogue'>, references: CarrierDefinitionReferences) {
  const { catalogue } = core;
  const base = createAccountResources<CarrierDefinitionInput, CarrierDefinition>(core, {
    collection: CARRIER_DEFINITIONS,
    topic: 'CARRIER_DEFINITION',
    label: 'Carrier Definition',
    check(accountId, input, previous) {
      const violations: Violation[] = [];
      if (!catalogue.carrier(input.carrierId)) {
        violations.push({ field: 'body/carrierId', message: `${input.carrierId} is not a Carrier of the carrier catalogue (GET /v1/carriers)` });
      }
      violations.push(...duplicateSettingKeys(input.settings));
      if (previous?.mode === 'PRODUCTION' && effectiveMode(input.mode) !== 'PRODUCTION') {
        // Spec, Carrier Definition mode: the only transition is STAGING → PRODUCTION.
        violations.push({ field: 'body/mode', message: 'a PRODUCTION Carrier Definition cannot go back to STAGING; send mode PRODUCTION, or create a new definition for testing' });
      }
      if (previous && input.carrierId !== previous.carrierId) {
        const referencing = references.serviceDefinitionsOf(accountId, previous.id);
        if (referencing.length) {
          violations.push({ field: 'body/carrierId', message: `cannot change the carrier while ${referencing.length} Service Definition(s) use this Carrier Definition (${referencing.join(', ')})` });
        }
      }
      const problem = violationsProblem(violations);
      if (problem) throw problem;
    },
    checkDelete(accountId, definition) {
      const referencing = references.serviceDefinitionsOf(accountId, definition.id);
      if (referencing.length) {
        throw new ProblemError('rule-violation', {
          detail: `Carrier Definition ${definition.id} is used by ${referencing.length} Service Definition(s) (${referencing.join(', ')}); delete them first`,
        });
      }
    },
    build: (input, meta) => ({
      ...meta,
      carrierId: input.carrierId,
      name: input.name,
      // '' matches the group pattern but names no group: stored as absent.
      group: input.group || undefined,
      mode: effectiveMode(input.mode),
      settings: input.settings,
    }),
  });

  return {
    ...base,
    /**
     * One v0 page. Spec: "page (default 0), size (1 to 1000, default 10)"; a page past the last
     * one is a 404 (contract/DECISIONS.md "v0 list 404"); page 0 of nothing is an empty page.
     */
    listPage(accountId: string, request: { page: number; size: number } & CarrierDefinitionFilter): CarrierDefinitionPage {
      const { page, size } = request;
      const filter = filterOf(request);
      // Unfiltered pages are O(size) slices; a group filter has to count its matches for totalPages.
      const matching = filter ? base.all(accountId).filter(filter) : undefined;
      const total = matching ? matching.length : base.count(accountId);
      const totalPages = Math.ceil(total / size);
      if (page > 0 && page >= totalPages) {
        throw new ProblemError('not-found', {
          detail: `Page ${page} does not exist: ${total} Carrier Definition(s) make ${totalPages} page(s) of ${size} (pages count from 0)`,
        });
      }
      const start = page * size;
      const items = matching ? matching.slice(start, start + size) : base.slice(accountId, start, start + size);
      return { currentPage: page, pageSize: size, totalPages, items };
    },
  };
}

export type CarrierDefinitionService = ReturnType<typeof createCarrierDefinitionService>;
