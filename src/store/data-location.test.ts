import { describe, expect, it } from 'vitest';
import { isPostgresUrl, maskUrl, redactSecrets, secretsOf } from './data-location.js';

/** Every run of 4 characters of the password: none may appear in what is shown. */
function pieces(password: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 4 <= password.length; i++) out.push(password.slice(i, i + 4));
  return out;
}

describe('--data values', () => {
  it('tells a PostgreSQL URL from a file path', () => {
    expect(isPostgresUrl('postgres://shipmock@127.0.0.1:5432/shipmock')).toBe(true);
    expect(isPostgresUrl('POSTGRESQL://h/db')).toBe(true);
    expect(isPostgresUrl('/var/lib/shipmock/mock.db')).toBe(false);
    expect(isPostgresUrl('postgres.db')).toBe(false);
  });

  it('shows what is not secret, as it was given', () => {
    expect(maskUrl('postgres://shipmock:s3cret@db.example.com:5432/mock')).toBe('postgres://shipmock:***@db.example.com:5432/mock');
    expect(maskUrl('postgres://shipmock@127.0.0.1/mock')).toBe('postgres://shipmock@127.0.0.1/mock');
    expect(maskUrl('postgresql://u@h:5433/db?sslmode=require&application_name=ci')).toBe('postgresql://u@h:5433/db?sslmode=require&application_name=ci');
  });

  // [what the URL is, the URL, its password]
  const cases: [string, string, string][] = [
    ['plain', 'postgres://u:hunter2pw@db.example:5432/mock', 'hunter2pw'],
    ['"@" in the password', 'postgres://u:p@ss@word1@db.example/mock', 'p@ss@word1'],
    ['":" in the password', 'postgres://u:pa:ss:wd9@db.example/mock', 'pa:ss:wd9'],
    ['"%" in the password, not encoded', 'postgres://u:50%off!xyz@db.example/mock', '50%off!xyz'],
    ['percent-encoded "@"', 'postgres://u:s3cr%40tpw@db.example/mock', 's3cr@tpw'],
    ['"#" in the password', 'postgres://u:Xq#9vTz@db.example/mock', 'Xq#9vTz'],
    ['"/" in the password', 'postgres://u:Xq/9vTz@db.example/mock', 'Xq/9vTz'],
    ['"?" in the password', 'postgres://u:Xq?9vTz@db.example/mock', 'Xq?9vTz'],
    ['an invalid port after it', 'postgres://u:p@ss@db.example:99999/mock', 'p@ss'],
    ['?password=', 'postgres://u@db.example/mock?password=hunter2pw', 'hunter2pw'],
    ['?password= with "&" encoded', 'postgres://u@db.example/mock?sslmode=disable&password=a%26b%3Dcdef', 'a&b=cdef'],
    ['?sslpassword=', 'postgres://u@db.example/mock?sslpassword=Kp9vQz7w', 'Kp9vQz7w'],
    ['an empty user', 'postgres://:onlypass1@db.example/mock', 'onlypass1'],
    ['not a URL at all', 'postgres://u:p%zz@[bad/db', 'p%zz'],
  ];
  it.each(cases)('never shows a password with %s', (_what, url, password) => {
    const shown = maskUrl(url);
    for (const piece of pieces(password)) expect(shown, `${shown} shows "${piece}"`).not.toContain(piece);
    // An error that quotes the password in any form is redacted too.
    const quoted = `failed: ${password} / ${encodeURIComponent(password)} / ${url}`;
    const redacted = redactSecrets(quoted, url);
    expect(redacted).not.toContain(password);
    expect(redacted).not.toContain(encodeURIComponent(password));
  });

  it('redacts PGPASSWORD from any text', () => {
    expect(secretsOf('postgres://u@h/db', { PGPASSWORD: 'envpass42' })).toContain('envpass42');
    expect(redactSecrets('password envpass42 rejected', 'postgres://u@h/db', { PGPASSWORD: 'envpass42' })).toBe('password *** rejected');
  });
});
