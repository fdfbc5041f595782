import { barcodeBitmap, encodePng } from './barcode.js';
import { labelBlocks } from './label-content.js';
import type { LabelContent, LabelSize, RenderedDocument } from './model.js';
import { createCanvas, type GlyphCache } from './raster.js';
import { truncate } from './text.js';

/** Physical sizes in inches, for pixel dimensions at a resolution. */
const INCHES: Record<LabelSize, [number, number]> = {
  A4: [8.27, 11.69],
  A6: [4.13, 5.83],
  LABEL_4X6: [4, 6],
};

const BASE_WIDTH = 288;
const BASE_HEIGHT = 432;

/**
 * A shipping label as a grayscale PNG at the channel's resolution (default 300 dpi), with the
 * same blocks as the PDF label, text in OCR-B and the tracking number as a Code 128 barcode.
 * @example renderPngLabel(content, 'LABEL_4X6', 203, createdAt).bytes.subarray(1, 4).toString() // 'PNG'
 */
export function renderPngLabel(content: LabelContent, size: LabelSize, dpi: number, createdAt: string, glyphs?: GlyphCache): RenderedDocument {
  const width = Math.round(INCHES[size][0] * dpi);
  const height = Math.round(INCHES[size][1] * dpi);
  const canvas = createCanvas(width, height, glyphs);
  const s = Math.min(width / BASE_WIDTH, height / BASE_HEIGHT);
  const left = (width - BASE_WIDTH * s) / 2;
  const x = (u: number) => Math.round(left + u * s);
  const y = (u: number) => Math.round(u * s);
  const blocks = labelBlocks(content, createdAt);
  const text = (value: string, ux: number, uy: number, size: number) => canvas.text(x(ux), y(uy), value, Math.round(size * s));
  const rule = (uy: number) => canvas.fillRect(x(12), y(uy), (BASE_WIDTH - 24) * s, Math.max(1, s));

  if (content.specimen) {
    // Raster labels cannot carry a transparent overlay: a gray band with a big mid-gray
    // SPECIMEN goes down first, and the black label text is drawn over it.
    const bandSize = Math.round(44 * s);
    const bandY = y(150);
    canvas.fillRect(0, bandY - Math.round(8 * s), width, bandSize + Math.round(16 * s), 225);
    canvas.text(Math.round((width - canvas.measure('SPECIMEN', bandSize)) / 2), bandY, 'SPECIMEN', bandSize, 120);
  }
  canvas.strokeRect(x(4), y(4), (BASE_WIDTH - 8) * s, (BASE_HEIGHT - 8) * s, Math.max(2, Math.round(1.5 * s)));
  text(truncate(blocks.carrier, 20), 12, 12, 20);
  const service = truncate(blocks.service, 24);
  canvas.text(x(BASE_WIDTH - 12) - canvas.measure(service, Math.round(10 * s)), y(18), service, Math.round(10 * s));
  rule(40);
  text('FROM', 12, 45, 8);
  blocks.from.slice(0, 5).forEach((line, i) => text(truncate(line, 44), 12, 55 + i * 9.5, 8));
  rule(106);
  text('TO', 12, 111, 9);
  blocks.to.slice(0, 7).forEach((line, i) => text(truncate(line, 26), 12, 122 + i * 14, i === 0 ? 14 : 12));
  rule(224);
  blocks.details.slice(0, 6).forEach((line, i) => text(truncate(line, 22), i % 2 === 0 ? 12 : 148, 231 + Math.floor(i / 2) * 12, 9));
  rule(270);

  // Whole-pixel modules keep the bars sharp: the widest module that fits the label width.
  const probe = barcodeBitmap(blocks.trackingNumber, { moduleWidth: 1, height: 1 });
  const moduleWidth = Math.max(1, Math.floor(((BASE_WIDTH - 24) * s) / probe.width));
  const barcode = barcodeBitmap(blocks.trackingNumber, { moduleWidth, height: 78 * s });
  canvas.blit(barcode, Math.round((width - barcode.width) / 2), y(278));
  const trackingSize = Math.round(14 * s);
  canvas.text(Math.round((width - canvas.measure(blocks.trackingNumber, trackingSize)) / 2), y(362), blocks.trackingNumber, trackingSize);
  rule(384);
  const footerSize = Math.round(7 * s);
  canvas.text(Math.round((width - canvas.measure(blocks.footer, footerSize)) / 2), y(392), blocks.footer, footerSize);

  return { bytes: encodePng(canvas, dpi), contentType: 'PNG', mediaType: 'image/png', extension: 'png' };
}
