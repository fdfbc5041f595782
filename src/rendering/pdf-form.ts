import type { DocumentParty } from './model.js';
import { drawSpecimenWatermark, type Pdf } from './pdf.js';
import { partyLines, toWinAnsi, truncate } from './text.js';

/**
 * Building blocks of the A4 forms (customs declaration, dangerous goods declaration, manifest):
 * titled header, labelled boxes, and a table that continues on new pages with its header
 * repeated and, for specimens, the watermark on every page.
 */
export const A4: [number, number] = [595.28, 841.89];
export const MARGIN = 36;

export interface Column {
  title: string;
  width: number;
  align?: 'left' | 'right' | 'center';
}

export interface FormWriter {
  doc: Pdf;
  /** Current vertical position. */
  y: number;
  title(title: string, subtitle?: string): void;
  /** Side-by-side boxes of labelled lines (e.g. sender and receiver). */
  boxes(boxes: { label: string; lines: string[] }[], height?: number): void;
  /** `label: value` pairs in two columns. */
  fields(pairs: [string, string][]): void;
  table(columns: Column[], rows: string[][]): void;
  paragraph(text: string, size?: number): void;
  signature(labels: string[]): void;
  /** Applies per-page finishing (watermark) to the last page. */
  end(): void;
}

export function partyBox(label: string, party: DocumentParty): { label: string; lines: string[] } {
  return { label, lines: [...partyLines(party), party.phone, party.email].filter((l): l is string => Boolean(l)) };
}

/** @example const form = createFormWriter(doc, { specimen: true }); form.title('CN 23') */
export function createFormWriter(doc: Pdf, options: { specimen: boolean; footer: string }): FormWriter {
  const [width, height] = A4;
  const innerWidth = width - 2 * MARGIN;
  const bottom = height - MARGIN - 20;
  let page = 1;

  const finishPage = () => {
    doc.font('Helvetica').fontSize(7).fillColor('#555555');
    doc.text(toWinAnsi(`${options.footer} | page ${page}`), MARGIN, height - MARGIN - 8, { width: innerWidth, align: 'center', lineBreak: false });
    doc.fillColor('black');
    if (options.specimen) drawSpecimenWatermark(doc, width, height);
  };

  const writer: FormWriter = {
    doc,
    y: MARGIN,
    title(title, subtitle) {
      doc.font('Helvetica-Bold').fontSize(18).text(toWinAnsi(title), MARGIN, writer.y, { lineBreak: false });
      writer.y += 24;
      if (subtitle) {
        doc.font('Helvetica').fontSize(9).text(toWinAnsi(subtitle), MARGIN, writer.y, { width: innerWidth });
        writer.y = doc.y + 4;
      }
      doc.moveTo(MARGIN, writer.y).lineTo(width - MARGIN, writer.y).lineWidth(1).stroke();
      writer.y += 10;
    },
    boxes(boxes, boxHeight = 96) {
      const gap = 10;
      const boxWidth = (innerWidth - gap * (boxes.length - 1)) / boxes.length;
      boxes.forEach((box, i) => {
        const x = MARGIN + i * (boxWidth + gap);
        doc.rect(x, writer.y, boxWidth, boxHeight).lineWidth(0.8).stroke();
        doc.font('Helvetica-Bold').fontSize(7.5).text(toWinAnsi(box.label.toUpperCase()), x + 6, writer.y + 6, { lineBreak: false });
        box.lines.slice(0, 7).forEach((line, j) => {
          doc.font('Helvetica').fontSize(9).text(toWinAnsi(truncate(line, 48)), x + 6, writer.y + 18 + j * 11, { lineBreak: false });
        });
      });
      writer.y += boxHeight + 12;
    },
    fields(pairs) {
      const half = innerWidth / 2;
      pairs.forEach(([label, value], i) => {
        const x = MARGIN + (i % 2) * half;
        const y = writer.y + Math.floor(i / 2) * 14;
        doc.font('Helvetica-Bold').fontSize(8.5).text(toWinAnsi(`${label}:`), x, y, { lineBreak: false });
        doc.font('Helvetica').fontSize(8.5).text(toWinAnsi(truncate(value, 52)), x + 92, y, { lineBreak: false });
      });
      writer.y += Math.ceil(pairs.length / 2) * 14 + 8;
    },
    table(columns, rows) {
      const rowHeight = 15;
      const header = () => {
        doc.rect(MARGIN, writer.y, innerWidth, rowHeight).fillColor('#e6e6e6').fill().fillColor('black');
        let x = MARGIN;
        for (const column of columns) {
          doc.font('Helvetica-Bold').fontSize(8).text(toWinAnsi(column.title), x + 3, writer.y + 4, { width: column.width - 6, align: column.align ?? 'left', lineBreak: false });
          x += column.width;
        }
        writer.y += rowHeight;
      };
      header();
      for (const row of rows) {
        if (writer.y + rowHeight > bottom) {
          finishPage();
          doc.addPage();
          page += 1;
          writer.y = MARGIN;
          header();
        }
        let x = MARGIN;
        row.forEach((cell, i) => {
          const column = columns[i];
          const maxChars = Math.max(4, Math.floor(column.width / 4.4));
          doc.font('Helvetica').fontSize(8).text(toWinAnsi(truncate(cell, maxChars)), x + 3, writer.y + 4, { width: column.width - 6, align: column.align ?? 'left', lineBreak: false });
          x += column.width;
        });
        doc.moveTo(MARGIN, writer.y + rowHeight).lineTo(width - MARGIN, writer.y + rowHeight).lineWidth(0.3).stroke();
        writer.y += rowHeight;
      }
      writer.y += 10;
    },
    paragraph(text, size = 8.5) {
      if (writer.y + 40 > bottom) {
        finishPage();
        doc.addPage();
        page += 1;
        writer.y = MARGIN;
      }
      doc.font('Helvetica').fontSize(size).text(toWinAnsi(text), MARGIN, writer.y, { width: innerWidth });
      writer.y = doc.y + 8;
    },
    signature(labels) {
      if (writer.y + 50 > bottom) {
        finishPage();
        doc.addPage();
        page += 1;
        writer.y = MARGIN;
      }
      const gap = 20;
      const w = (innerWidth - gap * (labels.length - 1)) / labels.length;
      labels.forEach((label, i) => {
        const x = MARGIN + i * (w + gap);
        doc.moveTo(x, writer.y + 30).lineTo(x + w, writer.y + 30).lineWidth(0.6).stroke();
        doc.font('Helvetica').fontSize(7.5).text(toWinAnsi(label), x, writer.y + 34, { lineBreak: false });
      });
      writer.y += 50;
    },
    end() {
      finishPage();
    },
  };
  return writer;
}
