import { FILE_FORMATS, type DangerousGoodsFormContent, type RenderedDocument } from './model.js';
import { createPdf } from './pdf.js';
import { A4, createFormWriter, partyBox } from './pdf-form.js';

/**
 * A shipper's declaration for dangerous goods (IATA/ADR-like) as an A4 PDF: parties, one row
 * per declared substance with UN number, proper shipping name, class, packing group and
 * quantity, emergency contacts and the shipper's certification.
 * @example renderDangerousGoodsForm(content, clock.nowIso()).mediaType // 'application/pdf'
 */
export function renderDangerousGoodsForm(content: DangerousGoodsFormContent, createdAt: string): RenderedDocument {
  const { doc, finish } = createPdf({ size: A4, createdAt, title: "Shipper's declaration for dangerous goods" });
  const form = createFormWriter(doc, { specimen: content.specimen, footer: `${content.carrier.name} | generated ${createdAt.slice(0, 10)}` });
  form.title("SHIPPER'S DECLARATION FOR DANGEROUS GOODS", `Carrier: ${content.carrier.name}. Tracking: ${content.trackingNumbers.join(', ') || '-'}`);
  form.boxes([partyBox('Shipper', content.sender), partyBox('Consignee', content.receiver)]);
  form.table(
    [
      { title: 'UN no.', width: 50 },
      { title: 'Proper shipping name', width: 190 },
      { title: 'Class', width: 40 },
      { title: 'PG', width: 30 },
      { title: 'Quantity', width: 65, align: 'right' },
      { title: 'Type', width: 148.28 },
    ],
    content.items.map((item) => [
      item.unNumber,
      item.properShippingName,
      item.hazardClass ?? '',
      item.packingGroup ?? '',
      `${item.quantity} ${item.quantityUnit}`,
      item.typeName ?? '',
    ]),
  );
  const contacts = content.items.filter((i) => i.emergencyContact).map((i) => `${i.unNumber}: ${i.emergencyContact!.name}, ${i.emergencyContact!.phone}`);
  form.fields([
    ['Reference', content.reference ?? '-'],
    ['Emergency', contacts.join('; ') || '-'],
  ]);
  form.paragraph(
    'I hereby declare that the contents of this consignment are fully and accurately described above by the proper shipping ' +
      'name, and are classified, packaged, marked and labelled/placarded, and are in all respects in proper condition for ' +
      'transport according to applicable international and national governmental regulations.',
  );
  form.signature([`Date: ${createdAt.slice(0, 10)}`, 'Name and signature of the shipper']);
  form.end();
  const { bytes, pages } = finish();
  return { bytes, pages, ...FILE_FORMATS.PDF };
}
