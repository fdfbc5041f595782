import type { ResourceDeps } from '../shared/domain-deps.js';
import type { Principal } from '../../auth/principal.js';
import { ProblemError } from '../../errors/problem.js';
import type { Page, PageRequest } from '../../store/collection.js';
import type { Store } from '../../store/store.js';
import { compact } from '../../util/compact.js';
import { TEMPORARY_ACCOUNT_LIFETIME_MS, type Account, type AccountInput, type AccountOwner } from './model.js';

/** Accounts one company may hold (contract/DECISIONS.md, bounds). */
export const MAX_ACCOUNTS_PER_COMPANY = 10_000;

/** An account together with the company that owns it. */
export interface OwnedAccount {
  companyId: string;
  account: Account;
}

const accountsOf = (store: Store, companyId: string) => store.company(companyId).collection<Account>('accounts');

/** The ids of a company's accounts (webhook delivery of company-wide events reads them). */
export function companyAccountIds(store: Store, companyId: string): string[] {
  return accountsOf(store, companyId)
    .values()
    .map((account) => account.id);
}

/**
 * The account an AccountRequest describes, with the defaults the contract names (enabled, NORMAL,
 * PERMANENT). A replace that keeps TEMPORARY keeps the original expiry; switching to it starts the
 * 30 days from `nowMs`.
 */
function buildAccount(input: AccountInput, meta: { id: string; createdAt: string; updatedAt: string }, nowMs: number, previous?: Account): Account {
  const persistenceType = input.persistence?.type ?? 'PERMANENT';
  const expiresAt =
    persistenceType !== 'TEMPORARY' ? undefined : previous?.persistence.expiresAt ?? new Date(nowMs + TEMPORARY_ACCOUNT_LIFETIME_MS).toISOString();
  return compact({
    ...meta,
    alias: input.alias,
    company: input.company,
    contact: input.contact,
    enabled: input.enabled ?? true,
    meta: input.meta,
    persistence: { type: persistenceType, expiresAt },
    sources: input.sources,
    type: input.type ?? 'NORMAL',
  });
}

/**
 * Accounts live in their company's scope (`store.company(id)`, collection `accounts`); a global
 * index `account-owners` maps an account id to its company so token issuing and the auth step
 * can find it from the id alone. The account's own data lives in `store.account(id)` and is
 * dropped on delete or expiry (spec, Accounts: "removes its data"; contract/DECISIONS.md).
 *
 * @example
 * const accounts = createAccountService(runtime);
 * const account = accounts.create(companyId, { company, contact });
 */
export function createAccountService(core: ResourceDeps) {
  const { store, clock, random, events } = core;
  const accounts = (companyId: string) => accountsOf(store, companyId);
  const owners = () => store.global.collection<AccountOwner>('account-owners');

  const publish = (companyId: string, type: string, account: Account) =>
    events.publish({ topic: 'ACCOUNT', type, accountId: account.id, companyId, payload: account });

  const isExpired = (account: Account) =>
    account.persistence.expiresAt !== undefined && Date.parse(account.persistence.expiresAt) <= clock.now();

  /** Removes an account, its index entry and all its data; DELETED is published once. */
  function purge(companyId: string, account: Account): void {
    accounts(companyId).delete(account.id);
    owners().delete(account.id);
    store.reset(account.id);
    publish(companyId, 'DELETED', account);
  }

  /** The account with its owner, or undefined when unknown, deleted or expired (expiry purges lazily too). */
  function lookup(accountId: string): OwnedAccount | undefined {
    const owner = owners().get(accountId);
    const account = owner && accounts(owner.companyId).get(accountId);
    if (!owner || !account) return undefined;
    if (isExpired(account)) {
      purge(owner.companyId, account);
      return undefined;
    }
    return { companyId: owner.companyId, account };
  }

  // A TEMPORARY account expires on the virtual clock even when nobody asks for it, so its
  // DELETED event is published at expiry; lookups purge too, which covers restored snapshots.
  function scheduleExpiry(companyId: string, account: Account): void {
    const expiresAt = account.persistence.expiresAt;
    if (!expiresAt) return;
    clock.setTimer(Date.parse(expiresAt), () => {
      const current = accounts(companyId).get(account.id);
      if (current && isExpired(current)) purge(companyId, current);
    }, { kind: 'account-expiry', subject: account.id, accountId: account.id, detail: 'TEMPORARY account expires' });
  }

  const self = {
    create(companyId: string, input: AccountInput): Account {
      // The company usage report lists every account (contract: UsageReport.accounts maxItems).
      if (accounts(companyId).size >= MAX_ACCOUNTS_PER_COMPANY) {
        throw new ProblemError('rule-violation', {
          detail: `A company holds at most ${MAX_ACCOUNTS_PER_COMPANY} accounts; delete one first`,
          violations: [{ field: 'body', message: `a company holds at most ${MAX_ACCOUNTS_PER_COMPANY} accounts` }],
        });
      }
      const now = clock.nowIso();
      const account = buildAccount(input, { id: random.uuid(), createdAt: now, updatedAt: now }, clock.now());
      accounts(companyId).insert(account);
      owners().insert({ id: account.id, companyId });
      publish(companyId, 'CREATED', account);
      scheduleExpiry(companyId, account);
      return account;
    },

    /** The company's account; another company's or an unknown id is 404 (isolation). */
    get(companyId: string, accountId: string): Account {
      const found = lookup(accountId);
      if (!found || found.companyId !== companyId) {
        throw new ProblemError('not-found', { detail: `Account ${accountId} does not exist in this company` });
      }
      return found.account;
    },

    list(companyId: string, page: PageRequest<Account>): Page<Account> {
      const filter = page.filter;
      return accounts(companyId).page({ ...page, filter: (a) => !isExpired(a) && (!filter || filter(a)) });
    },

    replace(companyId: string, accountId: string, input: AccountInput): Account {
      const previous = self.get(companyId, accountId);
      const account = buildAccount(input, { id: accountId, createdAt: previous.createdAt, updatedAt: clock.nowIso() }, clock.now(), previous);
      accounts(companyId).update(account);
      publish(companyId, 'UPDATED', account);
      if (account.persistence.expiresAt !== previous.persistence.expiresAt) scheduleExpiry(companyId, account);
      return account;
    },

    remove(companyId: string, accountId: string): Account {
      const account = self.get(companyId, accountId);
      purge(companyId, account);
      return account;
    },

    /** The account and its company, for token issuing; undefined when unknown, deleted or expired. */
    lookup,

    /**
     * The auth step's hook: an Account token whose account was deleted or expired is 401, one
     * whose account is disabled is 403 (contract/DECISIONS.md, "Account enabled").
     */
    checkPrincipal(principal: Principal): ProblemError | undefined {
      if (principal.level !== 'ACCOUNT' || !principal.accountId) return undefined;
      const found = lookup(principal.accountId);
      if (!found || found.companyId !== principal.companyId) {
        return new ProblemError('invalid-token', { detail: 'The account of this token no longer exists; request a new token' });
      }
      if (!found.account.enabled) {
        return new ProblemError('forbidden', { detail: `Account ${principal.accountId} is disabled; the company can re-enable it` });
      }
      return undefined;
    },
  };
  return self;
}

export type AccountService = ReturnType<typeof createAccountService>;
