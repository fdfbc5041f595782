#!/usr/bin/env node
// Builds the mock's pages into the package (part of `npm run build`):
//  - dist/ui/    the inspector (/__admin/ui/), Preact + Vite, from ui/inspector/
//  - dist/docs/  the API reference (/docs), Swagger UI's files from swagger-ui-dist plus ui/docs/
//  - FILE.br and FILE.gz beside every text file of both, so the pages go over the wire compressed
//    (src/admin/pages.ts picks the one the browser accepts) without compressing per request
// Nothing is fetched from a CDN at run time. Skipped when the outputs are newer than every input,
// so `npm start` stays fast when nothing changed.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = new URL('..', import.meta.url).pathname;
const require = createRequire(import.meta.url);

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

function upToDate(output, inputs) {
  if (!existsSync(output)) return false;
  return newest(output) >= Math.max(...inputs.filter(existsSync).map(newest));
}

const uiInputs = [join(root, 'ui/inspector'), join(root, 'ui/vite.config.ts'), join(root, 'package-lock.json')];
if (!upToDate(join(root, 'dist/ui/index.html'), uiInputs)) {
  const started = performance.now();
  const { build } = await import('vite');
  await build({ configFile: join(root, 'ui/vite.config.ts') });
  console.log(`inspector built into dist/ui in ${Math.round(performance.now() - started)} ms`);
}

const swagger = dirname(require.resolve('swagger-ui-dist/package.json'));
const docsInputs = [join(root, 'ui/docs'), join(swagger, 'package.json')];
if (!upToDate(join(root, 'dist/docs/index.html'), docsInputs)) {
  const out = join(root, 'dist/docs');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png']) cpSync(join(swagger, file), join(out, file));
  cpSync(join(root, 'ui/docs'), out, { recursive: true });
  console.log('API reference copied into dist/docs');
}

/** Files worth compressing (images and fonts are compressed already). */
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|map)$/;

/** FILE.br (brotli, best) and FILE.gz (gzip -9) beside each compressible file, unless they are newer than it. */
function precompress(dir) {
  let written = 0;
  let before = 0;
  let after = 0;
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (COMPRESSIBLE.test(entry.name)) {
        const mtime = statSync(path).mtimeMs;
        const current = (suffix) => existsSync(path + suffix) && statSync(path + suffix).mtimeMs >= mtime;
        if (current('.br') && current('.gz')) continue;
        const bytes = readFileSync(path);
        const br = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
        writeFileSync(path + '.br', br);
        writeFileSync(path + '.gz', gzipSync(bytes, { level: 9 }));
        written++;
        before += bytes.length;
        after += br.length;
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  if (written > 0) console.log(`${dir.slice(root.length)}: ${written} files precompressed (${before} → ${after} bytes with brotli)`);
}
precompress(join(root, 'dist/ui'));
precompress(join(root, 'dist/docs'));
