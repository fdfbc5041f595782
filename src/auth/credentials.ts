import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { exportedAs, type StateRegistry } from '../store/state-registry.js';

/**
 * Client credentials the mock accepts: companies (and their accounts), affiliates, admins.
 * The default company is fixed and documented so a newcomer can start without configuration.
 */
export interface CompanyCredentials {
  companyId: string;
  name: string;
  clientId: string;
  clientSecret: string;
}
export interface AffiliateCredentials {
  affiliateId: string;
  name: string;
  clientId: string;
  clientSecret: string;
}
export interface AdminCredentials {
  clientId: string;
  clientSecret: string;
}
export interface CredentialsFile {
  companies?: CompanyCredentials[];
  affiliates?: AffiliateCredentials[];
  admins?: AdminCredentials[];
}

export type ClientIdentity =
  | { kind: 'company'; credentials: CompanyCredentials }
  | { kind: 'affiliate'; credentials: AffiliateCredentials }
  | { kind: 'admin'; credentials: AdminCredentials };

export interface CredentialRegistry {
  readonly companies: CompanyCredentials[];
  readonly affiliates: AffiliateCredentials[];
  readonly admins: AdminCredentials[];
  /** The seeded default company (first of the list). */
  readonly defaultCompany: CompanyCredentials;
  /** Checks a clientId/clientSecret pair; undefined when unknown or wrong. */
  authenticate(clientId: string, clientSecret: string): ClientIdentity | undefined;
  addCompany(company: CompanyCredentials): void;
  /**
   * Adds the saved companies this registry does not know yet (by company id or client id), as a
   * state import or a durable store gives them back; known ones keep their current credentials.
   */
  restoreCompanies(saved: readonly CompanyCredentials[]): void;
  company(companyId: string): CompanyCredentials | undefined;
}

export const BUILT_IN_CREDENTIALS_PATH = fileURLToPath(new URL('../../fixtures/credentials.json', import.meta.url));

export function readCredentialsFile(path: string): CredentialsFile {
  return JSON.parse(readFileSync(path, 'utf8')) as CredentialsFile;
}

/**
 * @example
 * const registry = createCredentialRegistry(readCredentialsFile(BUILT_IN_CREDENTIALS_PATH));
 * registry.authenticate('shipmock-demo-client', 'shipmock-demo-secret')?.kind // 'company'
 */
export function createCredentialRegistry(file: CredentialsFile, parts?: StateRegistry): CredentialRegistry {
  const companies = [...(file.companies ?? [])];
  const affiliates = [...(file.affiliates ?? [])];
  const admins = [...(file.admins ?? [])];
  if (companies.length === 0) throw new Error('credentials need at least one company');
  const clientIds = new Set<string>();
  const claim = (clientId: string) => {
    if (clientIds.has(clientId)) throw new Error(`clientId ${clientId} is used twice`);
    clientIds.add(clientId);
  };
  [...companies, ...affiliates, ...admins].forEach((c) => claim(c.clientId));

  function addCompany(company: CompanyCredentials): void {
    claim(company.clientId);
    companies.push(company);
  }
  const restoreCompanies = (saved: readonly CompanyCredentials[]) => {
    for (const company of saved) {
      const known = companies.some((c) => c.companyId === company.companyId || c.clientId === company.clientId);
      if (!known) addCompany({ ...company });
    }
  };
  parts?.register({
    name: 'companies',
    description: 'companies (with their client credentials), the built-in ones and those added at run time',
    durable: true,
    storage: 'value',
    sharing: 'shared',
    // README, State: a reset keeps the companies (credentials a suite set up in beforeAll).
    reset: 'kept',
    snapshot: () => companies.map((c) => ({ ...c })),
    restore: restoreCompanies,
    exported: exportedAs('companies', () => companies.map((c) => ({ ...c })), (saved: CompanyCredentials[] | undefined) => restoreCompanies(saved ?? [])),
  });
  return {
    companies,
    affiliates,
    admins,
    get defaultCompany() {
      return companies[0];
    },
    authenticate(clientId, clientSecret) {
      const company = companies.find((c) => c.clientId === clientId);
      if (company) return company.clientSecret === clientSecret ? { kind: 'company', credentials: company } : undefined;
      const affiliate = affiliates.find((c) => c.clientId === clientId);
      if (affiliate) return affiliate.clientSecret === clientSecret ? { kind: 'affiliate', credentials: affiliate } : undefined;
      const admin = admins.find((c) => c.clientId === clientId);
      if (admin) return admin.clientSecret === clientSecret ? { kind: 'admin', credentials: admin } : undefined;
      return undefined;
    },
    addCompany,
    restoreCompanies,
    company: (companyId) => companies.find((c) => c.companyId === companyId),
  };
}
