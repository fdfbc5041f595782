import { afterEach, beforeEach } from 'vitest';

/**
 * Records every exception or rejection that escapes background work during each test (in a real
 * `shipmock serve` it would end the process). Returns the list, emptied before each test.
 *
 * @example const escaped = recordEscapedErrors(); … expect(escaped).toEqual([]);
 */
export function recordEscapedErrors(): unknown[] {
  const escaped: unknown[] = [];
  const record = (error: unknown) => escaped.push(error);
  beforeEach(() => {
    escaped.length = 0;
    process.on('uncaughtException', record);
    process.on('unhandledRejection', record);
  });
  afterEach(() => {
    process.off('uncaughtException', record);
    process.off('unhandledRejection', record);
  });
  return escaped;
}
