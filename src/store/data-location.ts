/**
 * What a --data value names: a PostgreSQL database several processes share (postgres://…) or a
 * SQLite file one process keeps. Kept apart from the stores so that the CLI can tell and show a
 * value without loading a database driver.
 */

/** @example isPostgresUrl('postgres://shipmock@127.0.0.1/shipmock') // true */
export const isPostgresUrl = (value: string) => /^postgres(?:ql)?:\/\//i.test(value);

/** A URL as it may be shown (banner, errors, logs): the password replaced. @example maskUrl('postgres://u:pw@h/db') // 'postgres://u:***@h/db' */
export function maskUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
  }
}
