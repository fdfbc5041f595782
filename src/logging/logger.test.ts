import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';

function sink() {
  const lines: string[] = [];
  const destination = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
  return { lines, destination };
}

describe('createLogger', () => {
  it('pretty: one line per entry with level, message and fields; below the level nothing', () => {
    const { lines, destination } = sink();
    const logger = createLogger({ level: 'info', format: 'pretty', destination });
    logger.debug('hidden');
    logger.info({ requestId: 'r1', status: 404, violations: [{ field: 'body/x' }] }, 'GET /v1/x');
    logger.warn('plain message');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d INFO  GET \/v1\/x requestId=r1 status=404 violations=\[\{"field":"body\/x"\}\]\n$/);
    expect(lines[1]).toMatch(/WARN  plain message\n$/);
  });

  it('pretty: errors keep their message and stack; the level can change at run time', () => {
    const { lines, destination } = sink();
    const logger = createLogger({ level: 'error', format: 'pretty', destination });
    logger.error({ err: new Error('boom') }, 'unexpected error');
    expect(lines[0]).toContain('err=boom');
    expect(lines[0]).toContain('logger.test.ts');
    expect(logger.isLevelEnabled('info')).toBe(false);
    logger.level = 'silent';
    logger.fatal('nothing');
    expect(lines).toHaveLength(1);
  });

  it('json: pino lines for machines', () => {
    const { lines, destination } = sink();
    const logger = createLogger({ level: 'info', format: 'json', destination });
    logger.info({ status: 200 }, 'GET /v1/carriers');
    expect(JSON.parse(lines[0])).toMatchObject({ level: 30, msg: 'GET /v1/carriers', status: 200 });
  });
});
