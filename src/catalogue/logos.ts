import { createHash } from 'node:crypto';
import type { PNG as PngClass } from 'pngjs';
import { lazyModule } from '../util/lazy-module.js';

const pngjs = lazyModule<{ PNG: typeof PngClass }>('pngjs');
import { GLYPH_HEIGHT, glyphRows, textWidth } from './bitmap-font.js';
import type { LogoDesign } from './model.js';

/** A rendered logo: PNG bytes plus the strong ETag of exactly those bytes (RFC 9110 §8.8.3). */
export interface RenderedLogo {
  png: Buffer;
  etag: string;
}

export const LOGO_WIDTH = 192;
export const LOGO_HEIGHT = 96;
const CORNER = 14;

type Rgba = [number, number, number, number];

function parseColor(hex: string): Rgba {
  const match = /^#([0-9a-f]{6})$/i.exec(hex);
  if (!match) throw new Error(`logo colour ${hex} is not #RRGGBB`);
  const n = parseInt(match[1], 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255, 255];
}

/** Whether (x, y) lies inside the badge's rounded rectangle. */
function insideBadge(x: number, y: number): boolean {
  const cx = x < CORNER ? CORNER : x >= LOGO_WIDTH - CORNER ? LOGO_WIDTH - CORNER - 1 : x;
  const cy = y < CORNER ? CORNER : y >= LOGO_HEIGHT - CORNER ? LOGO_HEIGHT - CORNER - 1 : y;
  const dx = x - cx;
  const dy = y - cy;
  return dx * dx + dy * dy <= CORNER * CORNER;
}

/**
 * Draws a carrier badge: a rounded rectangle in the brand colour with the carrier's short name
 * in the 5×7 bitmap font, an optional second line, and an optional accent bar. Deterministic:
 * the same design always gives the same bytes (and so the same ETag).
 *
 * @example
 * const { png, etag } = renderLogo({ background: '#FFCC00', foreground: '#D40511', text: 'DHL' });
 */
export function renderLogo(design: LogoDesign): RenderedLogo {
  const { PNG } = pngjs();
  const png = new PNG({ width: LOGO_WIDTH, height: LOGO_HEIGHT });
  const background = parseColor(design.background);
  const foreground = parseColor(design.foreground);
  const accent = design.accent ? parseColor(design.accent) : undefined;
  const set = (x: number, y: number, color: Rgba) => {
    if (x < 0 || y < 0 || x >= LOGO_WIDTH || y >= LOGO_HEIGHT || !insideBadge(x, y)) return;
    const at = (y * LOGO_WIDTH + x) * 4;
    png.data[at] = color[0];
    png.data[at + 1] = color[1];
    png.data[at + 2] = color[2];
    png.data[at + 3] = color[3];
  };
  for (let y = 0; y < LOGO_HEIGHT; y++) for (let x = 0; x < LOGO_WIDTH; x++) set(x, y, background);

  const drawText = (text: string, maxScale: number, centerY: number) => {
    const scale = Math.max(1, Math.min(maxScale, Math.floor((LOGO_WIDTH - 2 * CORNER) / textWidth(text))));
    const left = Math.floor((LOGO_WIDTH - textWidth(text) * scale) / 2);
    const top = Math.floor(centerY - (GLYPH_HEIGHT * scale) / 2);
    [...text].forEach((char, index) => {
      const rows = glyphRows(char);
      rows.forEach((row, gy) => {
        [...row].forEach((cell, gx) => {
          if (cell !== '#') return;
          const x0 = left + index * 6 * scale + gx * scale;
          const y0 = top + gy * scale;
          for (let dy = 0; dy < scale; dy++) for (let dx = 0; dx < scale; dx++) set(x0 + dx, y0 + dy, foreground);
        });
      });
    });
  };

  if (design.subtext) {
    drawText(design.text, 7, LOGO_HEIGHT * 0.4);
    drawText(design.subtext, 2, LOGO_HEIGHT * 0.78);
  } else {
    drawText(design.text, 8, LOGO_HEIGHT / 2);
  }
  if (accent) for (let y = LOGO_HEIGHT - 8; y < LOGO_HEIGHT; y++) for (let x = 0; x < LOGO_WIDTH; x++) set(x, y, accent);

  const bytes = PNG.sync.write(png);
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
  return { png: bytes, etag };
}
