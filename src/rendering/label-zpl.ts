import { LABEL_GRID, TEXT_WIDTH, labelLayout } from './label-layout.js';
import { FILE_FORMATS, type LabelContent, type LabelSize, type RenderedDocument } from './model.js';
import { toAscii } from './text.js';

/** Printable width × length in millimetres, for ^PW/^LL in dots. */
const MILLIMETRES: Record<LabelSize, [number, number]> = {
  A4: [210, 297],
  A6: [105, 148],
  LABEL_4X6: [101.6, 152.4],
};

/**
 * Field data in ZPL: ^ and ~ are command prefixes, so with ^FH they and the escape character
 * itself are written as _XX hex escapes.
 */
function fieldData(text: string): string {
  return `^FH^FD${toAscii(text).replace(/[_^~]/g, (c) => `_${c.charCodeAt(0).toString(16).toUpperCase()}`)}^FS`;
}

/**
 * A shipping label in ZPL II (^XA … ^XZ) for thermal printers at the channel's resolution
 * (default 203 dpi): the label layout (label-layout.ts) as ^FO fields in font 0 and the
 * barcode as ^BC Code 128; SPECIMEN printed reversed (^FR) over the receiver block.
 * @example renderZplLabel(content, 'LABEL_4X6', 203, createdAt).bytes.toString().startsWith('^XA') // true
 */
export function renderZplLabel(content: LabelContent, size: LabelSize, dpi: number, createdAt: string): RenderedDocument {
  const dotsPerMm = dpi / 25.4;
  const width = Math.round(MILLIMETRES[size][0] * dotsPerMm);
  const length = Math.round(MILLIMETRES[size][1] * dotsPerMm);
  const s = Math.min(width / LABEL_GRID.width, length / LABEL_GRID.height);
  const left = (width - LABEL_GRID.width * s) / 2;
  const at = (ux: number, uy: number) => `^FO${Math.round(left + ux * s)},${Math.round(uy * s)}`;
  const font = (size: number) => `^A0N,${Math.round(size * s)},${Math.round(size * s * 0.9)}`;
  const layout = labelLayout(content, createdAt);
  const lines: string[] = ['^XA', '^CI0', `^PW${width}`, `^LL${length}`, '^LH0,0'];

  for (const element of layout.elements) {
    switch (element.kind) {
      case 'frame':
        lines.push(`${at(element.x, element.y)}^GB${Math.round(element.width * s)},${Math.round(element.height * s)},${Math.max(2, Math.round(element.weight * s))}^FS`);
        break;
      case 'rule':
        lines.push(`${at(12, element.y)}^GB${Math.round(TEXT_WIDTH * s)},${Math.max(2, Math.round(s))},${Math.max(2, Math.round(s))}^FS`);
        break;
      case 'text': {
        const block = element.align ? `^FB${Math.round(TEXT_WIDTH * s)},1,0,${element.align === 'right' ? 'R' : 'C'}` : '';
        lines.push(`${at(element.x, element.y)}${font(element.size)}${block}${fieldData(element.text)}`);
        break;
      }
      case 'barcode': {
        const moduleWidth = Math.max(2, Math.min(4, Math.round(s)));
        const height = Math.round((element.height - 2) * s);
        lines.push(`${at(element.x + 8, element.y + 2)}^BY${moduleWidth},3,${height}^BCN,${height},N,N,N${fieldData(element.value)}`);
        break;
      }
    }
  }
  if (layout.specimen) {
    // ^FR prints the field reversed, so SPECIMEN stays legible over whatever lies beneath.
    lines.push(`${at(30, layout.specimenBand.y + 10)}^A0N,${Math.round(48 * s)},${Math.round(44 * s)}^FR${fieldData('SPECIMEN')}`);
  }
  lines.push('^XZ', '');
  return { bytes: Buffer.from(lines.join('\n'), 'ascii'), ...FILE_FORMATS.ZPL };
}
