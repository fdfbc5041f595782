import type PDFDocument from 'pdfkit';
import { lazyModule } from '../util/lazy-module.js';

const pdfkit = lazyModule<typeof PDFDocument>('pdfkit');
import type { LabelSize } from './model.js';

/**
 * pdfkit set up for reproducible output: the creation date comes from the virtual clock (pdfkit
 * derives the file ID from the info dictionary, so no random ID either), and the bytes are read
 * synchronously from the document stream after `end()`.
 */
export type Pdf = InstanceType<typeof PDFDocument>;

/** Page sizes in PDF points (1/72 in). */
export const PAGE_SIZES: Record<LabelSize, [number, number]> = {
  A4: [595.28, 841.89],
  A6: [297.64, 419.53],
  LABEL_4X6: [288, 432],
};

export interface PdfOptions {
  size: [number, number];
  /** ISO timestamp from the mock's clock. */
  createdAt: string;
  title: string;
  layout?: 'portrait' | 'landscape';
}

export interface PdfHandle {
  doc: Pdf;
  /** Ends the document and returns its bytes and page count. */
  finish(): { bytes: Buffer; pages: number };
}

/** @example const { doc, finish } = createPdf({ size: PAGE_SIZES.A6, createdAt, title: 'Label' }) */
export function createPdf(options: PdfOptions): PdfHandle {
  const created = new Date(options.createdAt);
  const PdfDocument = pdfkit();
  const doc = new PdfDocument({
    size: options.size,
    layout: options.layout ?? 'portrait',
    margin: 0,
    info: { CreationDate: created, ModDate: created, Producer: 'shipmock', Creator: 'shipmock', Title: options.title },
  });
  let pages = 1;
  doc.on('pageAdded', () => {
    pages += 1;
  });
  return {
    doc,
    finish() {
      doc.end();
      // Nothing consumes the stream, so every chunk pdfkit pushed is still buffered: read it now.
      const chunks: Buffer[] = [];
      for (let chunk = doc.read() as Buffer | null; chunk !== null; chunk = doc.read() as Buffer | null) chunks.push(chunk);
      return { bytes: Buffer.concat(chunks), pages };
    },
  };
}

/**
 * The big diagonal SPECIMEN mark of STAGING documents (DESIGN "Carrier modes"), drawn over the
 * page in light gray so the content stays readable.
 */
export function drawSpecimenWatermark(doc: Pdf, width: number, height: number): void {
  const fontSize = Math.min(width, height) / 5.2;
  doc.save();
  doc.fillColor('#9a9a9a').fillOpacity(0.35).font('Helvetica-Bold').fontSize(fontSize);
  doc.rotate(-Math.atan2(height, width) * (180 / Math.PI), { origin: [width / 2, height / 2] });
  const textWidth = doc.widthOfString('SPECIMEN');
  doc.text('SPECIMEN', width / 2 - textWidth / 2, height / 2 - fontSize / 2, { lineBreak: false });
  doc.restore();
  doc.fillColor('black').fillOpacity(1);
}
