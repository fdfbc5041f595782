import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadContract, type Contract, type OpenApiDocument } from '../contract/load-contract.js';

const require = createRequire(import.meta.url);

/**
 * Reads a contract to check pacts against: JSON as JSON, YAML with js-yaml's YAML 1.2 core
 * schema (no timestamps, no merge keys: what the mock's own loader, the `yaml` package, reads).
 * js-yaml rather than `yaml` here because can-i-deploy sees each contract once and parsing is
 * most of its time: this contract's 10,000 lines take 58 ms of CPU instead of 465 ms (docs/can-i-deploy.md, Budget).
 *
 * @example const contract = readContract('contract/openapi.yaml');
 */
export function readContract(path: string): Contract {
  const text = readFileSync(path, 'utf8');
  let document: OpenApiDocument;
  if (/^\s*\{/.test(text)) document = JSON.parse(text) as OpenApiDocument;
  else {
    const jsYaml = require('js-yaml') as typeof import('js-yaml');
    document = jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA, filename: path }) as OpenApiDocument;
  }
  if (!document || typeof document !== 'object') throw new Error('is not an OpenAPI document');
  return loadContract(document);
}
