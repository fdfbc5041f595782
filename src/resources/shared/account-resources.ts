import type { EventInput, TopicPayloads } from '../../events/event-bus.js';
import type { ResourceDeps } from './domain-deps.js';
import { notFound } from '../../errors/problem.js';
import type { Entity, Page, PageRequest } from '../../store/collection.js';
import { compact } from '../../util/compact.js';

/**
 * The common life of an account-scoped resource: create, get, list, replace, delete — each
 * state change stored in the account's scope and published as an event
 * `{topic, type: CREATED|UPDATED|DELETED, accountId, payload: resource}`.
 * Families add their own rules through the hooks; routes stay one line per operation.
 */
export interface Timestamps {
  id: string;
  createdAt: string;
  updatedAt: string;
}

/** The topics whose events carry a Resource: a family's own topic. */
export type TopicOf<Resource> = { [T in keyof TopicPayloads]: Resource extends TopicPayloads[T] ? T : never }[keyof TopicPayloads];

export interface AccountResourceOptions<Input, Resource extends Entity> {
  /** Collection name inside the account scope. */
  collection: string;
  /** The family's event topic (spec, Events); its events carry the resource (events/event-bus.ts TopicPayloads). */
  topic: TopicOf<Resource>;
  /** Spec name for messages, e.g. 'Address'. */
  label: string;
  /** Builds the stored resource from a request; `previous` is set on replace. */
  build(input: Input, meta: Timestamps, accountId: string, previous?: Resource): Resource;
  /** Cross-reference and rule checks before create/replace; throw a ProblemError to refuse. */
  check?(accountId: string, input: Input, previous?: Resource): void;
  /** Rule checks before delete (e.g. still referenced); throw to refuse. */
  checkDelete?(accountId: string, resource: Resource): void;
}

export interface AccountResources<Input, Resource extends Entity> {
  create(accountId: string, input: Input): Resource;
  get(accountId: string, id: string): Resource;
  find(accountId: string, id: string): Resource | undefined;
  list(accountId: string, page: PageRequest<Resource>): Page<Resource>;
  replace(accountId: string, id: string, input: Input): Resource;
  /** Stores a changed resource (service-internal transitions) and publishes UPDATED. */
  save(accountId: string, resource: Resource): Resource;
  remove(accountId: string, id: string): Resource;
  all(accountId: string): Resource[];
  count(accountId: string): number;
  /** Items [start, end) in creation order: offset pages in O(page). */
  slice(accountId: string, start: number, end: number): Resource[];
}

/** @example const addresses = createAccountResources(core, { collection: 'addresses', topic: 'ADDRESS', label: 'Address', build }) */
export function createAccountResources<Input, Resource extends Entity & { updatedAt?: string }>(
  core: ResourceDeps,
  options: AccountResourceOptions<Input, Resource>,
): AccountResources<Input, Resource> {
  const { store, clock, random, events } = core;
  const collection = (accountId: string) => store.account(accountId).collection<Resource>(options.collection);
  const publish = (accountId: string, type: string, resource: Resource) =>
    // Generic code: TopicOf<Resource> pairs the family's topic with its resource type where the
    // family is declared; TypeScript cannot follow that pairing through the generics here.
    events.publish({ topic: options.topic, type, accountId, payload: resource } as unknown as EventInput);

  const self: AccountResources<Input, Resource> = {
    create(accountId, input) {
      options.check?.(accountId, input);
      const now = clock.nowIso();
      const resource = compact(options.build(input, { id: random.uuid(), createdAt: now, updatedAt: now }, accountId));
      collection(accountId).insert(resource);
      publish(accountId, 'CREATED', resource);
      return resource;
    },
    find: (accountId, id) => collection(accountId).get(id),
    get(accountId, id) {
      const found = collection(accountId).get(id);
      if (!found) throw notFound(options.label, id);
      return found;
    },
    list: (accountId, page) => collection(accountId).page(page),
    replace(accountId, id, input) {
      const previous = self.get(accountId, id);
      options.check?.(accountId, input, previous);
      const meta = { id, createdAt: (previous as Resource & { createdAt: string }).createdAt, updatedAt: clock.nowIso() };
      const resource = compact(options.build(input, meta, accountId, previous));
      collection(accountId).update(resource);
      publish(accountId, 'UPDATED', resource);
      return resource;
    },
    save(accountId, resource) {
      const stored = compact({ ...resource, updatedAt: clock.nowIso() });
      collection(accountId).update(stored);
      publish(accountId, 'UPDATED', stored);
      return stored;
    },
    remove(accountId, id) {
      const resource = self.get(accountId, id);
      options.checkDelete?.(accountId, resource);
      collection(accountId).delete(id);
      publish(accountId, 'DELETED', resource);
      return resource;
    },
    all: (accountId) => collection(accountId).values(),
    count: (accountId) => collection(accountId).size,
    slice: (accountId, start, end) => collection(accountId).slice(start, end),
  };
  return self;
}
