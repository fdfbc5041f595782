import { createHash } from 'node:crypto';
import type { LogoDesign } from '../carrier-catalogue/model.js';
import { encodePng } from './barcode.js';
import { createCanvas } from './raster.js';

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
 * in OCR-B (the labels' font, raster.ts), an optional second line and an optional accent bar,
 * as an RGBA PNG through the labels' encoder. The text is drawn as a coverage mask on the
 * grayscale canvas, then coloured. Deterministic: the same design always gives the same bytes
 * (and so the same ETag).
 *
 * @example
 * const { png, etag } = renderLogo({ background: '#FFCC00', foreground: '#D40511', text: 'DHL' });
 */
export function renderLogo(design: LogoDesign): RenderedLogo {
  const background = parseColor(design.background);
  const foreground = parseColor(design.foreground);
  const accent = design.accent ? parseColor(design.accent) : undefined;
  const mask = createCanvas(LOGO_WIDTH, LOGO_HEIGHT);
  const drawText = (text: string, maxSize: number, centerY: number) => {
    let size = maxSize;
    while (size > 8 && mask.measure(text, size) > LOGO_WIDTH - 2 * CORNER) size--;
    const left = Math.floor((LOGO_WIDTH - mask.measure(text, size)) / 2);
    mask.text(left, Math.round(centerY - size * 0.4), text, size);
  };
  if (design.subtext) {
    drawText(design.text, 48, LOGO_HEIGHT * 0.4);
    drawText(design.subtext, 18, LOGO_HEIGHT * 0.78);
  } else {
    drawText(design.text, 56, LOGO_HEIGHT / 2);
  }

  const data = Buffer.alloc(LOGO_WIDTH * LOGO_HEIGHT * 4);
  for (let y = 0; y < LOGO_HEIGHT; y++) {
    for (let x = 0; x < LOGO_WIDTH; x++) {
      if (!insideBadge(x, y)) continue; // transparent corners
      const ink = 255 - mask.data[y * LOGO_WIDTH + x];
      const color = accent && y >= LOGO_HEIGHT - 8 ? accent : blend(background, foreground, ink);
      data.set(color, (y * LOGO_WIDTH + x) * 4);
    }
  }
  const bytes = encodePng({ width: LOGO_WIDTH, height: LOGO_HEIGHT, data, channels: 4 });
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
  return { png: bytes, etag };
}

/** `over` laid on `under` with coverage 0–255. */
function blend(under: Rgba, over: Rgba, coverage: number): Rgba {
  const mix = (a: number, b: number) => Math.round(a + ((b - a) * coverage) / 255);
  return [mix(under[0], over[0]), mix(under[1], over[1]), mix(under[2], over[2]), 255];
}
