import { barcodePng } from './barcode.js';
import { labelBlocks } from './label-content.js';
import type { LabelContent, LabelSize, RenderedDocument } from './model.js';
import { PAGE_SIZES, createPdf, drawSpecimenWatermark } from './pdf.js';
import { toWinAnsi, truncate } from './text.js';

// The layout is drawn on a 288 × 432 pt grid (a 4×6 in label) and scaled to the page size.
const BASE_WIDTH = 288;
const BASE_HEIGHT = 432;

/**
 * A shipping label as a one-page PDF: carrier, service, sender, receiver, parcel details and
 * the tracking number as a Code 128 barcode (PNG from bwip-js) with its text below.
 * @example renderPdfLabel(content, 'A6', clock.nowIso()).bytes.subarray(0, 5).toString() // '%PDF-'
 */
export function renderPdfLabel(content: LabelContent, size: LabelSize, createdAt: string): RenderedDocument {
  const [pageWidth, pageHeight] = PAGE_SIZES[size];
  const { doc, finish } = createPdf({ size: [pageWidth, pageHeight], createdAt, title: `Label ${content.trackingNumber}` });
  const s = Math.min(pageWidth / BASE_WIDTH, pageHeight / BASE_HEIGHT);
  const left = (pageWidth - BASE_WIDTH * s) / 2;
  const x = (u: number) => left + u * s;
  const y = (u: number) => u * s;
  const blocks = labelBlocks(content, createdAt);
  const innerWidth = (BASE_WIDTH - 24) * s;

  const text = (value: string, ux: number, uy: number, font: string, size: number, options: PDFKit.Mixins.TextOptions = {}) =>
    doc.font(font).fontSize(size * s).text(toWinAnsi(value), x(ux), y(uy), { lineBreak: false, ...options });
  const rule = (uy: number) => doc.moveTo(x(12), y(uy)).lineTo(x(BASE_WIDTH - 12), y(uy)).lineWidth(1.2 * s).stroke();

  doc.rect(x(4), y(4), (BASE_WIDTH - 8) * s, (BASE_HEIGHT - 8) * s).lineWidth(1.5 * s).stroke();
  text(truncate(blocks.carrier, 22), 12, 14, 'Helvetica-Bold', 18);
  text(truncate(blocks.service, 30), 12, 14, 'Helvetica', 9, { width: innerWidth, align: 'right' });
  rule(40);

  text('FROM', 12, 46, 'Helvetica-Bold', 7);
  blocks.from.slice(0, 5).forEach((line, i) => text(truncate(line, 60), 12, 55 + i * 9.5, 'Helvetica', 8));
  rule(106);

  text('TO', 12, 112, 'Helvetica-Bold', 8);
  blocks.to.slice(0, 7).forEach((line, i) =>
    text(truncate(line, 34), 12, 122 + i * 14, i === 0 ? 'Helvetica-Bold' : 'Helvetica', i === 0 ? 13 : 12),
  );
  rule(224);

  blocks.details.slice(0, 6).forEach((line, i) => text(truncate(line, 28), i % 2 === 0 ? 12 : 148, 231 + Math.floor(i / 2) * 12, 'Helvetica', 8.5));
  rule(270);

  const barcode = barcodePng(blocks.trackingNumber, { moduleWidth: 2, height: 120, quietZone: 10 });
  doc.image(barcode, x(12), y(278), { width: innerWidth, height: 78 * s });
  text(blocks.trackingNumber, 12, 362, 'Helvetica-Bold', 13, { width: innerWidth, align: 'center' });
  rule(384);
  text(blocks.footer, 12, 392, 'Helvetica', 6.5, { width: innerWidth, align: 'center' });

  if (content.specimen) drawSpecimenWatermark(doc, pageWidth, pageHeight);
  const { bytes, pages } = finish();
  return { bytes, pages, contentType: 'PDF', mediaType: 'application/pdf', extension: 'pdf' };
}
