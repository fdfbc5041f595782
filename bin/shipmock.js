#!/usr/bin/env node
// Entry point of the `shipmock` command: runs the compiled CLI (npm run build).
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).catch((error) => {
  process.stderr.write(`shipmock: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
