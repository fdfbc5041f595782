import { describe, expect, it } from 'vitest';
import { diffContracts } from './diff.js';
import { exampleDocument } from './example-documents.js';
import { renderReport } from './render.js';

const shared = (maxLength: number, extra: Record<string, unknown> = {}) => ({
  ...exampleDocument('response-body', { type: 'object', properties: { a: { $ref: '#/components/schemas/Code' }, b: { $ref: '#/components/schemas/Code' } }, ...extra }),
  components: { schemas: { Code: { type: 'string', maxLength } } },
});

describe('diff reports', () => {
  const report = diffContracts(shared(10), shared(20, { required: [] }));

  it('groups one component change reached from several places into one text entry', () => {
    const text = renderReport(report, 'text');
    expect(text).toBe(
      [
        'Contract diff: old → new',
        '0 breaking, 2 may break, 0 safe',
        '',
        'MAY BREAK (2 at 1 place)',
        '  [response-bound-loosened] maxLength 10 → 20',
        '    GET /things · response 200 (application/json) › a',
        '    GET /things · response 200 (application/json) › b',
        '    new #/components/schemas/Code/maxLength',
        '',
      ].join('\n'),
    );
  });

  it('writes a Markdown comment with a verdict and a table per class', () => {
    const markdown = renderReport(report, 'markdown');
    expect(markdown.split('\n').slice(0, 7)).toEqual([
      '### Contract diff: **changes that may break clients**',
      '',
      '`old` → `new`: 0 breaking, 2 may break, 0 safe.',
      '',
      '#### May break (2 at 1 place)',
      '',
      '| Change | Where | Rule |',
    ]);
    expect(markdown).toContain('| maxLength 10 → 20 | `GET /things` response 200 (application/json) › a<br>`GET /things` response 200 (application/json) › b | `response-bound-loosened` |');
  });

  it('lists every change per operation in JSON, in a stable shape', () => {
    const json = JSON.parse(renderReport(report, 'json'));
    expect(Object.keys(json)).toEqual(['formatVersion', 'old', 'new', 'summary', 'changes']);
    expect(json.changes.map((c: { schemaPath: string }) => c.schemaPath)).toEqual(['a', 'b']);
    expect(Object.keys(json.changes[0])).toEqual(['rule', 'class', 'ruleClass', 'reason', 'operation', 'location', 'status', 'where', 'schemaPath', 'pointer']);
  });

  it('says when nothing changed', () => {
    expect(renderReport(diffContracts(shared(10), shared(10)), 'text')).toContain('No changes a client could notice.');
    expect(renderReport(diffContracts(shared(10), shared(10)), 'markdown')).toContain('### Contract diff: no breaking changes');
  });
});

describe('changesForInteraction', () => {
  it('keeps what concerns one interaction: request changes of its operation and response changes of its status', async () => {
    const { changesForInteraction } = await import('./diff.js');
    const before = exampleDocument('responses', { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { a: { type: 'string' } } } } } } });
    const after = exampleDocument('responses', { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } }, '404': { description: 'gone' } });
    (after.paths as any)['/things'].get.parameters = [{ name: 'q', in: 'query', required: true, schema: { type: 'string' } }];
    const { changes } = diffContracts(before, after);
    expect(changes.map((c) => c.rule).sort()).toEqual(['request-parameter-added-required', 'response-error-status-added', 'response-property-removed']);
    expect(changesForInteraction(changes, { method: 'get', path: '/things', status: 200 }).map((c) => c.rule)).toEqual(['request-parameter-added-required', 'response-property-removed']);
    expect(changesForInteraction(changes, { method: 'GET', path: '/things', status: 404 }).map((c) => c.rule)).toEqual(['request-parameter-added-required', 'response-error-status-added']);
    expect(changesForInteraction(changes, { method: 'POST', path: '/things', status: 201 })).toEqual([]);
  });
});
