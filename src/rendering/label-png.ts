import { barcodeBitmap, encodePng } from './barcode.js';
import { LABEL_GRID, TEXT_WIDTH, labelLayout } from './label-layout.js';
import { FILE_FORMATS, type LabelContent, type LabelSize, type RenderedDocument } from './model.js';
import { createCanvas, type GlyphCache } from './raster.js';

/** Physical sizes in inches, for pixel dimensions at a resolution. */
const INCHES: Record<LabelSize, [number, number]> = {
  A4: [8.27, 11.69],
  A6: [4.13, 5.83],
  LABEL_4X6: [4, 6],
};

/**
 * A shipping label as a grayscale PNG at the channel's resolution (default 300 dpi): the label
 * layout (label-layout.ts) drawn in OCR-B, the barcode in whole-pixel modules. Raster labels
 * cannot carry a transparent overlay, so a SPECIMEN band goes down first, under the text.
 * @example renderPngLabel(content, 'LABEL_4X6', 203, createdAt).bytes.subarray(1, 4).toString() // 'PNG'
 */
export function renderPngLabel(content: LabelContent, size: LabelSize, dpi: number, createdAt: string, glyphs?: GlyphCache): RenderedDocument {
  const width = Math.round(INCHES[size][0] * dpi);
  const height = Math.round(INCHES[size][1] * dpi);
  const canvas = createCanvas(width, height, glyphs);
  const s = Math.min(width / LABEL_GRID.width, height / LABEL_GRID.height);
  const left = (width - LABEL_GRID.width * s) / 2;
  const x = (u: number) => Math.round(left + u * s);
  const y = (u: number) => Math.round(u * s);
  const layout = labelLayout(content, createdAt);

  if (layout.specimen) {
    const bandSize = Math.round(layout.specimenBand.height * s);
    const bandY = y(layout.specimenBand.y);
    canvas.fillRect(0, bandY - Math.round(8 * s), width, bandSize + Math.round(16 * s), 225);
    canvas.text(Math.round((width - canvas.measure('SPECIMEN', bandSize)) / 2), bandY, 'SPECIMEN', bandSize, 120);
  }
  for (const element of layout.elements) {
    switch (element.kind) {
      case 'frame':
        canvas.strokeRect(x(element.x), y(element.y), element.width * s, element.height * s, Math.max(2, Math.round(element.weight * s)));
        break;
      case 'rule':
        canvas.fillRect(x(12), y(element.y), TEXT_WIDTH * s, Math.max(1, s));
        break;
      case 'text': {
        const px = Math.round(element.size * s);
        const room = TEXT_WIDTH * s - canvas.measure(element.text, px);
        const offset = element.align === 'right' ? room : element.align === 'center' ? room / 2 : 0;
        canvas.text(x(element.x) + Math.round(offset), y(element.y), element.text, px);
        break;
      }
      case 'barcode': {
        // Whole-pixel modules keep the bars sharp: the widest module that fits the box.
        const probe = barcodeBitmap(element.value, { moduleWidth: 1, height: 1 });
        const moduleWidth = Math.max(1, Math.floor((element.width * s) / probe.width));
        const barcode = barcodeBitmap(element.value, { moduleWidth, height: element.height * s });
        canvas.blit(barcode, Math.round((width - barcode.width) / 2), y(element.y));
        break;
      }
    }
  }
  return { bytes: encodePng(canvas, dpi), ...FILE_FORMATS.PNG };
}
