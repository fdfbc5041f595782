import { describe, expect, it } from 'vitest';
import { isPostgresUrl, maskUrl } from './data-location.js';

describe('--data values', () => {
  it('tells a PostgreSQL URL from a file path', () => {
    expect(isPostgresUrl('postgres://shipmock@127.0.0.1:5432/shipmock')).toBe(true);
    expect(isPostgresUrl('POSTGRESQL://h/db')).toBe(true);
    expect(isPostgresUrl('/var/lib/shipmock/mock.db')).toBe(false);
    expect(isPostgresUrl('postgres.db')).toBe(false);
  });

  it('never shows a password', () => {
    expect(maskUrl('postgres://shipmock:s3cret@db.example.com:5432/mock')).toBe('postgres://shipmock:***@db.example.com:5432/mock');
    expect(maskUrl('postgres://shipmock@127.0.0.1/mock')).toBe('postgres://shipmock@127.0.0.1/mock');
    // Not a URL the parser takes: still masked.
    expect(maskUrl('postgres://u:p%zz@[bad/db')).not.toContain('p%zz');
  });
});
