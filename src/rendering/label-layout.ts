import type { LabelContent } from './model.js';
import { formatWeight, partyLines, truncate } from './text.js';

/**
 * THE label: what goes where, on a 288 × 432 unit grid (a 4×6 in label in points), once for
 * every format. The PDF, PNG and ZPL renderers only draw these elements in their medium, scaled
 * to the label size, so the three carry the same information in the same places.
 */
export const LABEL_GRID = { width: 288, height: 432 } as const;

/** The text column: 12 units in from either side. */
const MARGIN = 12;
export const TEXT_WIDTH = LABEL_GRID.width - 2 * MARGIN;

export type LabelElement =
  /** The label's outer frame. */
  | { kind: 'frame'; x: number; y: number; width: number; height: number; weight: number }
  /** A full-width rule between blocks. */
  | { kind: 'rule'; y: number }
  /** One line of text, already cut to fit; `align` over the text column, left by default. */
  | { kind: 'text'; text: string; x: number; y: number; size: number; bold?: boolean; align?: 'right' | 'center' }
  /** The tracking number as a Code 128 barcode, filling the box. */
  | { kind: 'barcode'; value: string; x: number; y: number; width: number; height: number };

export interface LabelLayout {
  elements: LabelElement[];
  /** A STAGING label: each medium marks it SPECIMEN its own way (watermark, band, reversed field). */
  specimen: boolean;
  /** Where a SPECIMEN band goes (the receiver block), for media that cannot overlay. */
  specimenBand: { y: number; height: number };
  trackingNumber: string;
}

/**
 * @example labelLayout(content, createdAt).elements.find((e) => e.kind === 'barcode') // { kind: 'barcode', value: '0034…', … }
 */
export function labelLayout(content: LabelContent, createdAt: string): LabelLayout {
  const text = (value: string, x: number, y: number, size: number, maxChars: number, style: { bold?: boolean; align?: 'right' | 'center' } = {}): LabelElement => ({
    kind: 'text',
    text: truncate(value, maxChars),
    x,
    y,
    size,
    ...style,
  });
  const elements: LabelElement[] = [
    { kind: 'frame', x: 4, y: 4, width: LABEL_GRID.width - 8, height: LABEL_GRID.height - 8, weight: 1.5 },
    text(content.carrier.name, MARGIN, 12, 20, 20, { bold: true }),
    text(content.service.name, MARGIN, 18, 10, 28, { align: 'right' }),
    { kind: 'rule', y: 40 },
    text('FROM', MARGIN, 45, 8, 4, { bold: true }),
    ...partyLines(content.sender)
      .slice(0, 5)
      .map((line, i) => text(line, MARGIN, 55 + i * 9.5, 8, 44)),
    { kind: 'rule', y: 106 },
    text('TO', MARGIN, 111, 9, 2, { bold: true }),
    ...receiverLines(content)
      .slice(0, 7)
      .map((line, i) => text(line, MARGIN, 122 + i * 14, i === 0 ? 14 : 12, 26, { bold: i === 0 })),
    { kind: 'rule', y: 224 },
    ...parcelDetails(content)
      .slice(0, 6)
      .map((line, i) => text(line, i % 2 === 0 ? MARGIN : 148, 231 + Math.floor(i / 2) * 12, 9, 22)),
    { kind: 'rule', y: 270 },
    { kind: 'barcode', value: content.trackingNumber, x: MARGIN, y: 278, width: TEXT_WIDTH, height: 78 },
    text(content.trackingNumber, MARGIN, 362, 14, 40, { bold: true, align: 'center' }),
    { kind: 'rule', y: 384 },
    text(footerOf(content, createdAt), MARGIN, 392, 7, 80, { align: 'center' }),
  ];
  return { elements, specimen: Boolean(content.specimen), specimenBand: { y: 150, height: 44 }, trackingNumber: content.trackingNumber };
}

function receiverLines(content: LabelContent): string[] {
  const to = partyLines(content.receiver);
  return content.receiverPudoName ? [content.receiverPudoName, ...to] : to;
}

/** @example parcelDetails(content) // ['Weight: 2.5 KG', 'Parcel 1 of 1', …] */
function parcelDetails(content: LabelContent): string[] {
  const { parcel } = content;
  const details = [`Weight: ${formatWeight(parcel.weight, parcel.weightUnit)}`];
  if (content.parcelIndex && content.parcelCount) details.push(`Parcel ${content.parcelIndex} of ${content.parcelCount}`);
  if (parcel.dimensions) {
    const d = parcel.dimensions;
    details.push(`Size: ${d.length} x ${d.width} x ${d.height} ${d.unit}`);
  }
  if (content.shipDate) details.push(`Ship date: ${content.shipDate}`);
  const reference = content.reference ?? parcel.reference;
  if (reference) details.push(`Ref: ${reference}`);
  return details;
}

function footerOf(content: LabelContent, createdAt: string): string {
  return `${content.specimen ? 'SPECIMEN - not valid for shipping' : 'shipmock'} | ${createdAt.slice(0, 19).replace('T', ' ')} UTC`;
}
