import { labelBlocks } from './label-content.js';
import type { LabelContent, LabelSize, RenderedDocument } from './model.js';
import { toAscii, truncate } from './text.js';

/** Printable width × length in millimetres, for ^PW/^LL in dots. */
const MILLIMETRES: Record<LabelSize, [number, number]> = {
  A4: [210, 297],
  A6: [105, 148],
  LABEL_4X6: [101.6, 152.4],
};

const BASE_WIDTH = 288;
const BASE_HEIGHT = 432;

/**
 * Field data in ZPL: ^ and ~ are command prefixes, so with ^FH they and the escape character
 * itself are written as _XX hex escapes.
 */
function fieldData(text: string): string {
  return `^FH^FD${toAscii(text).replace(/[_^~]/g, (c) => `_${c.charCodeAt(0).toString(16).toUpperCase()}`)}^FS`;
}

/**
 * A shipping label in ZPL II (^XA … ^XZ) for thermal printers at the channel's resolution
 * (default 203 dpi): text fields in font 0 and the tracking number as a ^BC Code 128 barcode.
 * @example renderZplLabel(content, 'LABEL_4X6', 203, createdAt).bytes.toString().startsWith('^XA') // true
 */
export function renderZplLabel(content: LabelContent, size: LabelSize, dpi: number, createdAt: string): RenderedDocument {
  const dotsPerMm = dpi / 25.4;
  const width = Math.round(MILLIMETRES[size][0] * dotsPerMm);
  const length = Math.round(MILLIMETRES[size][1] * dotsPerMm);
  const s = Math.min(width / BASE_WIDTH, length / BASE_HEIGHT);
  const left = (width - BASE_WIDTH * s) / 2;
  const at = (ux: number, uy: number) => `^FO${Math.round(left + ux * s)},${Math.round(uy * s)}`;
  const font = (size: number) => `^A0N,${Math.round(size * s)},${Math.round(size * s * 0.9)}`;
  const blocks = labelBlocks(content, createdAt);
  const lines: string[] = ['^XA', '^CI0', `^PW${width}`, `^LL${length}`, '^LH0,0'];
  const text = (value: string, ux: number, uy: number, size: number, align?: 'R' | 'C') =>
    lines.push(`${at(ux, uy)}${font(size)}${align ? `^FB${Math.round((BASE_WIDTH - 24) * s)},1,0,${align}` : ''}${fieldData(value)}`);
  const rule = (uy: number) => lines.push(`${at(12, uy)}^GB${Math.round((BASE_WIDTH - 24) * s)},${Math.max(2, Math.round(s))},${Math.max(2, Math.round(s))}^FS`);

  lines.push(`${at(4, 4)}^GB${Math.round((BASE_WIDTH - 8) * s)},${Math.round((BASE_HEIGHT - 8) * s)},${Math.max(2, Math.round(1.5 * s))}^FS`);
  text(truncate(blocks.carrier, 20), 12, 12, 20);
  text(truncate(blocks.service, 30), 12, 18, 10, 'R');
  rule(40);
  text('FROM', 12, 45, 8);
  blocks.from.slice(0, 5).forEach((line, i) => text(truncate(line, 50), 12, 55 + i * 9.5, 8));
  rule(106);
  text('TO', 12, 111, 9);
  blocks.to.slice(0, 7).forEach((line, i) => text(truncate(line, 30), 12, 122 + i * 14, i === 0 ? 14 : 12));
  rule(224);
  blocks.details.slice(0, 6).forEach((line, i) => text(truncate(line, 24), i % 2 === 0 ? 12 : 148, 231 + Math.floor(i / 2) * 12, 9));
  rule(270);
  const moduleWidth = Math.max(2, Math.min(4, Math.round(s)));
  lines.push(`${at(20, 280)}^BY${moduleWidth},3,${Math.round(76 * s)}^BCN,${Math.round(76 * s)},N,N,N${fieldData(blocks.trackingNumber)}`);
  text(blocks.trackingNumber, 12, 362, 14, 'C');
  rule(384);
  text(blocks.footer, 12, 392, 7, 'C');
  if (content.specimen) {
    // ^FR prints the field reversed, so SPECIMEN stays legible over whatever lies beneath.
    lines.push(`${at(30, 160)}^A0N,${Math.round(48 * s)},${Math.round(44 * s)}^FR${fieldData('SPECIMEN')}`);
  }
  lines.push('^XZ', '');
  return { bytes: Buffer.from(lines.join('\n'), 'ascii'), contentType: 'ZPL', mediaType: 'application/x-zpl', extension: 'zpl' };
}
