#!/usr/bin/env node
// Part of `npm run build`: compiles the bundled contract's validators once and stores them in
// the cache (see src/contract/compiled-contract.ts), so the first `shipmock serve` starts fast.
import { loadCompiledContract } from '../dist/contract/compiled-contract.js';

const started = performance.now();
const { source, contract } = loadCompiledContract();
console.log(`contract cache ${source === 'cache' ? 'already warm' : 'warmed'}: ${contract.operations.length} operations in ${Math.round(performance.now() - started)} ms`);
