import { createRequire } from 'node:module';

const requireFromHere = createRequire(import.meta.url);

/**
 * A module loaded on first use instead of at start. Start-up must stay well under a second,
 * and most runs never render a PDF, draw a logo, generate a certificate or compile a contract:
 * their libraries (pdfkit, bwip-js, selfsigned, Ajv's compiler, the YAML parser, faker)
 * would otherwise cost hundreds of milliseconds of import time at every start. Uses require(),
 * which loads ES modules too on Node >= 20.19.
 *
 * @example
 * const pdfkit = lazyModule<typeof import('pdfkit')>('pdfkit');
 * const doc = new (pdfkit())({ size: 'A6' });
 */
export function lazyModule<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireFromHere(specifier) as T);
}
