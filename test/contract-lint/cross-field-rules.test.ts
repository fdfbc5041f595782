import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTRACT_PATH, parseYaml } from '../../src/contract/load-contract.js';
import { WEBHOOK_URL } from '../../src/contract/formats.js';
import { loadCompiledContract } from '../../src/contract/compiled-contract.js';
import { createValidators, statedRulePaths } from '../../src/contract/validators.js';

// The rules Schemathesis found stated only in prose (issue 28), now in the schemas: checked here
// with a plain Ajv that knows nothing of shipmock (no custom formats, vendor keywords ignored),
// the way another tool reads the contract. The mock's own messages for them are asserted in
// test/api/inline-bookings.test.ts and test/api/pudo-points.test.ts.
const document = parseYaml(readFileSync(DEFAULT_CONTRACT_PATH, 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ ...document, $id: 'contract' });
const valid = (name: string, value: unknown) => ajv.getSchema(`contract#/components/schemas/${name}`)!(value);

const ID = '0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11';
const address = { name: 'Erika Mustermann', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
const inline = (extra: Record<string, unknown>) => ({ sender: address, parcels: [{ weight: 1 }], ...extra });
const embedded = { carrierDefinition: { carrierId: ID, name: 'DHL' }, serviceDefinition: { serviceId: ID, name: 'Standard' } };

describe('cross-field rules are in the schemas', () => {
  it.each([
    ['receiver', inline({ serviceDefinitionId: ID, receiver: address }), true],
    ['receiverPudoPointId', inline({ serviceDefinitionId: ID, receiverPudoPointId: ID }), true],
    ['both receiver and receiverPudoPointId', inline({ serviceDefinitionId: ID, receiver: address, receiverPudoPointId: ID }), false],
    ['neither receiver nor receiverPudoPointId', inline({ serviceDefinitionId: ID }), false],
    ['embedded definitions', inline({ ...embedded, receiver: address }), true],
    ['serviceDefinitionId and embedded definitions (the id wins)', inline({ serviceDefinitionId: ID, ...embedded, receiver: address }), true],
    ['neither serviceDefinitionId nor embedded definitions', inline({ receiver: address }), false],
  ])('inline booking with %s', (_name, body, expected) => {
    expect(valid('InlineShipmentBookingRequest', body)).toBe(expected);
  });

  it.each([
    ['addressId', { addressId: ID }, true],
    ['postalCode and countryCode', { postalCode: '10115', countryCode: 'DE' }, true],
    ['addressId and postalCode', { addressId: ID, postalCode: '10115' }, false],
    ['addressId and countryCode', { addressId: ID, countryCode: 'DE' }, false],
    ['addressId, postalCode and countryCode', { addressId: ID, postalCode: '10115', countryCode: 'DE' }, false],
    ['countryCode alone', { countryCode: 'DE' }, false],
    ['nothing', {}, false],
  ])('PUDO query with %s', (_name, body, expected) => {
    expect(valid('PudoPointQuery', body)).toBe(expected);
  });

  it('marks each of them for the mock (x-shipmock-rule), so it reports them in its own words', () => {
    expect(statedRulePaths(document, '#/components/schemas/InlineShipmentBookingRequest')).toEqual(['#/allOf/0', '#/allOf/1']);
    expect(statedRulePaths(document, '#/components/schemas/PudoPointQuery')).toEqual(['#/allOf/0']);
  });
});

describe('the mock leaves a stated rule to its service (which reports it in its own words)', () => {
  const { contract, schemas } = loadCompiledContract();
  const validators = createValidators(contract, schemas);
  const body = (operationId: string, value: unknown) => validators.forOperation(operationId).body!(value);

  it('a body that breaks only a stated rule passes the schema check', () => {
    expect(body('createInlineShipmentBooking', inline({ serviceDefinitionId: ID }))).toEqual([]);
    expect(body('createInlineShipmentBooking', inline({ receiver: address }))).toEqual([]);
    expect(body('queryPudoPoints', { addressId: ID, postalCode: '10115', countryCode: 'DE' })).toEqual([]);
    expect(body('queryPudoPoints', {})).toEqual([]);
  });

  it('a body with other faults is told those, as before the rules were in the schema', () => {
    expect(body('createInlineShipmentBooking', { ...inline({ serviceDefinitionId: ID }), parcels: [] })).toEqual([{ field: 'body/parcels', message: 'must NOT have fewer than 1 items' }]);
    expect(body('queryPudoPoints', { addressId: ID, postalCode: '10115', countryCode: 'DE', limit: 0 })).toEqual([{ field: 'body/limit', message: 'must be >= 1' }]);
  });
});

describe("a webhook URL's pattern needs a host (for tools that do not know format: webhook-url)", () => {
  const pattern = new RegExp(document.components.schemas.Webhook.properties.url.pattern, 'u');

  it.each(['http://', 'https://', 'http:///path', 'http://?x', 'http://#f', 'http://@/', 'http://:80/', 'ftp://x.test/'])('refuses %j', (url) => {
    expect(pattern.test(url)).toBe(false);
    expect(valid('Webhook', { url })).toBe(false);
  });

  // Everything the mock's own format accepts (src/contract/formats.test.ts), the pattern accepts
  // too: it only states the shape for other tools and never refuses a URL the mock takes.
  it.each([
    'http://127.0.0.1:9000/hooks',
    'https://hooks.example.com/shipping?x=1#f',
    'http://localhost',
    'http://my_service:3000/hook',
    'https://user:pass@hooks.example.com/x',
    'http://[::1]:8080/x',
    'https://hooks.example.com./x',
    'http://localhost?x=1',
  ])('accepts %s', (url) => {
    expect(WEBHOOK_URL.test(url)).toBe(true);
    expect(pattern.test(url)).toBe(true);
  });
});
