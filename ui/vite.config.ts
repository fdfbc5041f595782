import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// The inspector (/__admin/ui/) is built into the package's dist/ui by `npm run build`
// (scripts/build-ui.mjs); relative asset paths keep it working under any mount prefix.
export default defineConfig({
  root: new URL('./inspector', import.meta.url).pathname,
  base: './',
  plugins: [preact()],
  logLevel: 'warn',
  build: {
    outDir: new URL('../dist/ui', import.meta.url).pathname,
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
    chunkSizeWarningLimit: 400,
  },
});
