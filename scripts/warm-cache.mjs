#!/usr/bin/env node
// Part of `npm run build`: compiles the validators of the bundled contract, the control plane's
// contract and the scenario file format into dist/validator-cache, which `npm pack` ships, so a
// freshly installed package starts without compiling anything (src/util/disk-cache.ts). Entries
// of earlier contract versions are removed, so the package carries only the current ones.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_CONTRACT_PATH } from '../dist/admin/admin-contract.js';
import { loadCompiledContract } from '../dist/contract/compiled-contract.js';
import { SCENARIO_SCHEMA_PATH } from '../dist/scenarios/scenario-file.js';
import { scenarioSchemaCacheName, scenarioSchemaValidator } from '../dist/scenarios/scenario-schema.js';
import { SHIPPED_CACHE_DIR, shipEntriesTo } from '../dist/util/disk-cache.js';

const started = performance.now();
shipEntriesTo(SHIPPED_CACHE_DIR);
const api = loadCompiledContract();
const admin = loadCompiledContract(ADMIN_CONTRACT_PATH);
scenarioSchemaValidator(SCENARIO_SCHEMA_PATH);
const current = [api.cacheKey, admin.cacheKey, scenarioSchemaCacheName(SCENARIO_SCHEMA_PATH)];
for (const name of readdirSync(SHIPPED_CACHE_DIR)) {
  if (!current.some((key) => name.startsWith(key))) rmSync(join(SHIPPED_CACHE_DIR, name), { force: true });
}
const fresh = [api, admin].filter((c) => c.source === 'compiled').length;
console.log(`validators in dist/validator-cache: ${fresh ? `${fresh} contract(s) compiled` : 'already current'} (${api.contract.operations.length} + ${admin.contract.operations.length} operations, ${Math.round(performance.now() - started)} ms)`);
