import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('generated client types', () => {
  it('src/client/schema.ts matches contract/openapi.yaml (run `npm run generate:types` after a contract edit)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'shipmock-schema-'));
    try {
      const out = join(dir, 'schema.ts');
      // Exactly the generate:types script, with its output redirected to a temp file.
      const script: string = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts['generate:types'];
      const [bin, ...args] = script.split(/\s+/);
      const target = args.indexOf('-o') + 1;
      expect(target, 'generate:types must write with -o').toBeGreaterThan(0);
      args[target] = out;
      execFileSync(join(root, 'node_modules/.bin', bin), args, { cwd: root, stdio: 'pipe' });
      const committed = readFileSync(join(root, 'src/client/schema.ts'), 'utf8');
      expect(committed === readFileSync(out, 'utf8'), 'src/client/schema.ts is stale: run `npm run generate:types`').toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
