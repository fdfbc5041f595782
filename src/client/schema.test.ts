import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('generated client types', () => {
  it.each([
    ['generate:types', 'src/client/schema.ts', 'contract/openapi.yaml'],
    ['generate:admin-types', 'ui/inspector/src/admin-schema.ts', 'contract/admin.yaml'],
  ])('%s: %s matches %s (run the script after a contract edit)', (name, file) => {
    const dir = mkdtempSync(join(tmpdir(), 'shipmock-schema-'));
    try {
      const out = join(dir, 'schema.ts');
      // Exactly the generate:types script, with its output redirected to a temp file.
      const script: string = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts[name];
      const [bin, ...args] = script.split(/\s+/);
      const target = args.indexOf('-o') + 1;
      expect(target, `${name} must write with -o`).toBeGreaterThan(0);
      args[target] = out;
      execFileSync(join(root, 'node_modules/.bin', bin), args, { cwd: root, stdio: 'pipe' });
      const committed = readFileSync(join(root, file), 'utf8');
      expect(committed === readFileSync(out, 'utf8'), `${file} is stale: run \`npm run ${name}\``).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
