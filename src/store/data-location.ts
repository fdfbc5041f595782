/**
 * What a --data value names: a PostgreSQL database several processes share (postgres://…) or a
 * SQLite file one process keeps. Kept apart from the stores so that the CLI can tell and show a
 * value without loading a database driver.
 *
 * A URL is never shown as given: it may hold a password (in the user part, as `?password=`, or
 * in PGPASSWORD), and a password with `@`, `:`, `/`, `?`, `#` or `%` in it is split differently
 * by different parsers, so masking "the password part" of the text leaks pieces of it. What is
 * shown is rebuilt from the parsed pieces that are not secret, and every text that may quote a
 * URL (errors, log lines) goes through `redactSecrets` as well.
 */

/** @example isPostgresUrl('postgres://shipmock@127.0.0.1/shipmock') // true */
export const isPostgresUrl = (value: string) => /^postgres(?:ql)?:\/\//i.test(value);

/** Query parameters of a connection URL whose values are secrets (libpq's and pg's names). */
const SECRET_PARAMETER = /pass|secret|key|token|cert/i;

/**
 * A URL as it may be shown (banner, errors, logs): scheme, user, host, port, database and the
 * parameters that are not secrets; the password (if any) as `***`. A URL whose parts cannot be
 * told apart safely (not a valid URL, or an `@` after the host: a password with `/`, `?` or `#`
 * in it that was not percent-encoded) is shown without them.
 * @example maskUrl('postgres://u:p@ss@h/db?password=x&sslmode=require') // 'postgres://u:***@h/db?password=***&sslmode=require'
 */
export function maskUrl(url: string): string {
  const scheme = (/^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1] ?? 'postgres').toLowerCase();
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${scheme}://(not a valid URL; not shown, it may hold a password)`;
  }
  const server = `${parsed.host}`;
  if (`${parsed.pathname}${parsed.search}${parsed.hash}`.includes('@') || (!parsed.username && !parsed.password && url.includes('@'))) {
    return `${scheme}://${server}/… (the rest is not shown: an "@" after the host suggests a password with "/", "?" or "#" in it; percent-encode it, or give it in PGPASSWORD)`;
  }
  const user = parsed.username ? `${parsed.username}${parsed.password ? ':***' : ''}@` : parsed.password ? ':***@' : '';
  const query = [...parsed.searchParams].map(([key, value]) => `${encodeURIComponent(key)}=${SECRET_PARAMETER.test(key) ? '***' : encodeURIComponent(value)}`);
  return `${scheme}://${user}${server}${parsed.pathname}${query.length ? `?${query.join('&')}` : ''}`;
}

/**
 * The secrets a connection URL carries, in every form they may take in a text: the password as
 * written, percent-decoded and re-encoded (user part and secret parameters), and PGPASSWORD.
 */
export function secretsOf(url: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const secrets = new Set<string>();
  const add = (value: string | undefined | null) => {
    if (!value) return;
    for (const form of [value, safeDecode(value), encodeURIComponent(safeDecode(value))]) if (form.length >= 2) secrets.add(form);
  };
  add(env.PGPASSWORD);
  // The user part as written: everything between "//" and the last "@" before the path.
  const authority = /^[a-z][a-z0-9+.-]*:\/\/(.*)@/is.exec(url)?.[1];
  if (authority) {
    const colon = authority.indexOf(':');
    if (colon >= 0) add(authority.slice(colon + 1));
  }
  try {
    const parsed = new URL(url);
    add(parsed.password);
    for (const [key, value] of parsed.searchParams) if (SECRET_PARAMETER.test(key)) add(value);
  } catch {
    // the raw forms above are all there is
  }
  for (const match of url.matchAll(/[?&][^=&#]*(?:pass|secret|key|token)[^=&#]*=([^&#]*)/gi)) add(match[1]);
  // Longest first: a password that contains another secret is replaced whole.
  return [...secrets].sort((a, b) => b.length - a.length);
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * A text (an error message, a log line) with every secret of the URL replaced by `***`.
 * @example redactSecrets('auth failed for p@ss', 'postgres://u:p@ss@h/db') // 'auth failed for ***'
 */
export function redactSecrets(text: string, url: string, env: NodeJS.ProcessEnv = process.env): string {
  let out = text;
  for (const secret of secretsOf(url, env)) out = out.split(secret).join('***');
  return out;
}
