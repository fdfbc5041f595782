import { barcodePng } from './barcode.js';
import { LABEL_GRID, TEXT_WIDTH, labelLayout } from './label-layout.js';
import { FILE_FORMATS, type LabelContent, type LabelSize, type RenderedDocument } from './model.js';
import { PAGE_SIZES, createPdf, drawSpecimenWatermark } from './pdf.js';
import { toWinAnsi } from './text.js';

/**
 * A shipping label as a one-page PDF: the label layout (label-layout.ts) drawn with Helvetica,
 * the barcode as a Code 128 PNG from bwip-js, scaled to the page; a SPECIMEN watermark on top.
 * @example renderPdfLabel(content, 'A6', clock.nowIso()).bytes.subarray(0, 5).toString() // '%PDF-'
 */
export function renderPdfLabel(content: LabelContent, size: LabelSize, createdAt: string): RenderedDocument {
  const [pageWidth, pageHeight] = PAGE_SIZES[size];
  const { doc, finish } = createPdf({ size: [pageWidth, pageHeight], createdAt, title: `Label ${content.trackingNumber}` });
  const s = Math.min(pageWidth / LABEL_GRID.width, pageHeight / LABEL_GRID.height);
  const left = (pageWidth - LABEL_GRID.width * s) / 2;
  const x = (u: number) => left + u * s;
  const y = (u: number) => u * s;
  const layout = labelLayout(content, createdAt);

  for (const element of layout.elements) {
    switch (element.kind) {
      case 'frame':
        doc.rect(x(element.x), y(element.y), element.width * s, element.height * s).lineWidth(element.weight * s).stroke();
        break;
      case 'rule':
        doc.moveTo(x(12), y(element.y)).lineTo(x(12 + TEXT_WIDTH), y(element.y)).lineWidth(1.2 * s).stroke();
        break;
      case 'text':
        doc
          .font(element.bold ? 'Helvetica-Bold' : 'Helvetica')
          .fontSize(element.size * s)
          .text(toWinAnsi(element.text), x(element.x), y(element.y), { lineBreak: false, ...(element.align ? { width: TEXT_WIDTH * s, align: element.align } : {}) });
        break;
      case 'barcode':
        doc.image(barcodePng(element.value, { moduleWidth: 2, height: 120, quietZone: 10 }), x(element.x), y(element.y), { width: element.width * s, height: element.height * s });
        break;
    }
  }
  if (layout.specimen) drawSpecimenWatermark(doc, pageWidth, pageHeight);
  const { bytes, pages } = finish();
  return { bytes, pages, ...FILE_FORMATS.PDF };
}
