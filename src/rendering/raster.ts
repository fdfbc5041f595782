import type BwipJs from 'bwip-js';
import { lazyModule } from '../util/lazy-module.js';

const bwipjs = lazyModule<typeof BwipJs>('bwip-js');
import type { Bitmap } from './barcode.js';
import { toAscii } from './text.js';

/**
 * A small grayscale canvas for PNG labels: rectangles, blitted bitmaps and text drawn with
 * bwip-js' embedded OCR-B font (FontLib), so PNG labels need no system fonts.
 */
export interface Canvas extends Bitmap {
  fillRect(x: number, y: number, width: number, height: number, shade?: number): void;
  strokeRect(x: number, y: number, width: number, height: number, thickness: number): void;
  blit(source: Bitmap, x: number, y: number): void;
  /** Draws ASCII text with its top-left corner at (x, y); returns the advance width in pixels. `ink` 255 = black. */
  text(x: number, y: number, text: string, size: number, ink?: number): number;
  measure(text: string, size: number): number;
}

// bwip-js FontLib: font id 1 is OCR-B, its default and the most legible of its fonts.
const OCR_B = 1;

export interface Glyph {
  top: number;
  left: number;
  width: number;
  height: number;
  advance: number;
  bytes: Uint8Array;
  offset: number;
}

/**
 * Rasterised glyphs by character and size. FontLib rasterises in JavaScript (~1 ms per glyph
 * at 300 dpi sizes) and keeps only 250 glyphs, fewer than one label's sizes × characters, so
 * each mock instance keeps its own cache (created by the document service) and labels after
 * the first render at full speed.
 */
export interface GlyphCache {
  glyph(charCode: number, size: number): Glyph;
}

/** @example const glyphs = createGlyphCache(); createCanvas(1200, 1800, glyphs) */
export function createGlyphCache(): GlyphCache {
  const cache = new Map<number, Glyph>();
  return {
    glyph(charCode, size) {
      const key = size * 256 + charCode;
      let found = cache.get(key);
      if (!found) {
        // OCR-B cells are narrower than tall; 0.6 keeps the look of a monospace label font.
        const g = bwipjs().FontLib.getglyph(OCR_B, charCode, Math.round(size * 0.6), size);
        found = { top: g.top, left: g.left, width: g.width, height: g.height, advance: g.advance, bytes: g.bytes, offset: g.offset };
        cache.set(key, found);
      }
      return found;
    },
  };
}

/** @example const canvas = createCanvas(1200, 1800, createGlyphCache()); canvas.text(40, 40, 'DHL', 64) */
export function createCanvas(width: number, height: number, glyphCache: GlyphCache = createGlyphCache()): Canvas {
  const data = Buffer.alloc(width * height, 255);

  function darken(x: number, y: number, ink: number): void {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    const offset = y * width + x;
    data[offset] = Math.min(data[offset], 255 - ink);
  }

  function glyphs(text: string, size: number): Glyph[] {
    return [...toAscii(text)].map((char) => glyphCache.glyph(char.charCodeAt(0), size));
  }

  const canvas: Canvas = {
    width,
    height,
    data,
    fillRect(x, y, w, h, shade = 0) {
      const x0 = Math.max(0, Math.round(x));
      const x1 = Math.min(width, Math.round(x + w));
      for (let row = Math.max(0, Math.round(y)); row < Math.min(height, Math.round(y + h)); row++) {
        if (x1 > x0) data.fill(shade, row * width + x0, row * width + x1);
      }
    },
    strokeRect(x, y, w, h, t) {
      canvas.fillRect(x, y, w, t);
      canvas.fillRect(x, y + h - t, w, t);
      canvas.fillRect(x, y, t, h);
      canvas.fillRect(x + w - t, y, t, h);
    },
    blit(source, x, y) {
      // Row copies: the clipped span of each source row goes in with one Buffer.copy.
      const x0 = Math.max(0, x);
      const x1 = Math.min(width, x + source.width);
      if (x1 <= x0) return;
      for (let row = 0; row < source.height; row++) {
        const ty = y + row;
        if (ty < 0 || ty >= height) continue;
        source.data.copy(data, ty * width + x0, row * source.width + (x0 - x), row * source.width + (x1 - x));
      }
    },
    text(x, y, text, size, ink = 255) {
      let pen = Math.round(x);
      // FontLib glyph tops are measured from the baseline; place the baseline one cap height down.
      const baseline = Math.round(y + size * 0.8);
      for (const glyph of glyphs(text, size)) {
        for (let j = 0; j < glyph.height; j++) {
          for (let i = 0; i < glyph.width; i++) {
            const coverage = glyph.bytes[glyph.offset + j * glyph.width + i];
            if (coverage) darken(pen + glyph.left + i, baseline - glyph.top + j, Math.round((coverage * ink) / 255));
          }
        }
        pen += glyph.advance;
      }
      return pen - Math.round(x);
    },
    measure(text, size) {
      return glyphs(text, size).reduce((sum, glyph) => sum + glyph.advance, 0);
    },
  };
  return canvas;
}
