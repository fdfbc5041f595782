import type { LabelContent } from './model.js';
import { formatWeight, partyLines } from './text.js';

/**
 * The text blocks every label format prints, in one place so PDF, PNG and ZPL labels carry
 * the same information: carrier and service, sender, receiver, parcel details and the
 * tracking number under its barcode.
 */
export interface LabelBlocks {
  carrier: string;
  service: string;
  from: string[];
  to: string[];
  details: string[];
  trackingNumber: string;
  footer: string;
}

/** @example labelBlocks(content).details // ['Weight: 2.5 KG', 'Parcel 1 of 1', …] */
export function labelBlocks(content: LabelContent, createdAt: string): LabelBlocks {
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
  const to = partyLines(content.receiver);
  return {
    carrier: content.carrier.name,
    service: content.service.name,
    from: partyLines(content.sender),
    to: content.receiverPudoName ? [content.receiverPudoName, ...to] : to,
    details,
    trackingNumber: content.trackingNumber,
    footer: `${content.specimen ? 'SPECIMEN - not valid for shipping' : 'shipmock'} | ${createdAt.slice(0, 19).replace('T', ' ')} UTC`,
  };
}
