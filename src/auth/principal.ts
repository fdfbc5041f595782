/**
 * Who is calling, as the domain sees it: the level of the token (or Basic client credentials) and
 * the company, account or affiliate it speaks for. The authenticate step (src/app/steps/) derives
 * it from the request; services in src/resources/ receive it. It lives here, beside the tokens it
 * is read from, because the domain never imports HTTP types (DESIGN.md, "Layers").
 *
 * @example
 * const principal: Principal = { via: 'token', level: 'ACCOUNT', companyId, accountId, clientId };
 */
export type PrincipalLevel = 'COMPANY' | 'ACCOUNT' | 'AFFILIATE' | 'ADMIN';

export interface Principal {
  /** How the caller authenticated: a bearer token of a level, or Basic client credentials. */
  via: 'token' | 'client-credentials';
  level: PrincipalLevel;
  companyId?: string;
  accountId?: string;
  affiliateId?: string;
  clientId: string;
}
