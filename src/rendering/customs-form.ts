import { barcodePng } from './barcode.js';
import { FILE_FORMATS, type CustomsFormContent, type RenderedDocument } from './model.js';
import { createPdf } from './pdf.js';
import { A4, MARGIN, createFormWriter, partyBox } from './pdf-form.js';
import { formatAmount } from './text.js';

const CONTENT_TYPES: [string, string][] = [
  ['GIFT', 'Gift'],
  ['DOCUMENTS', 'Documents'],
  ['SALE_OF_GOODS', 'Sale of goods'],
  ['RETURNED_GOODS', 'Returned goods'],
  ['SAMPLE', 'Commercial sample'],
];

/**
 * The form's name from the declaration's catalogue types: CN 22 when that is the only postal
 * form named, CN 23 otherwise (the UPU form for higher values), with invoices named alongside.
 */
function formTitle(typeCodes: string[]): { title: string; invoice: string } {
  const codes = new Set(typeCodes.map((c) => c.toUpperCase()));
  const form = codes.has('CN22') && !codes.has('CN23') ? 'CN 22' : 'CN 23';
  const invoice = codes.has('COMMERCIAL_INVOICE') ? ' With commercial invoice.' : codes.has('PROFORMA_INVOICE') ? ' With pro forma invoice.' : '';
  return { title: `CUSTOMS DECLARATION ${form}`, invoice };
}

/**
 * A CN22/CN23-like customs declaration as an A4 PDF: parties, nature of contents, the lines with
 * HS codes and origin, totals, declarant, signature, and the tracking numbers (first as barcode).
 * @example renderCustomsForm(content, clock.nowIso()).pages // 1
 */
export function renderCustomsForm(content: CustomsFormContent, createdAt: string): RenderedDocument {
  const { doc, finish } = createPdf({ size: A4, createdAt, title: 'Customs declaration' });
  const form = createFormWriter(doc, { specimen: content.specimen, footer: `${content.carrier.name} | generated ${createdAt.slice(0, 10)}` });
  const { title, invoice } = formTitle(content.typeCodes);
  if (content.trackingNumbers[0]) {
    doc.image(barcodePng(content.trackingNumbers[0], { moduleWidth: 2, height: 60 }), A4[0] - MARGIN - 180, MARGIN - 4, { width: 180, height: 28 });
  }
  form.title(title, `Carrier: ${content.carrier.name}. May be opened officially.${invoice}`);
  form.boxes([partyBox('From (sender)', content.sender), partyBox('To (receiver)', content.receiver)]);
  const marked = CONTENT_TYPES.map(([code, label]) => `[${content.contentType === code ? 'X' : ' '}] ${label}`).join('   ');
  form.paragraph(`Category of item: ${marked}`);
  const lines = content.lines.map((line) => [
    line.description,
    String(line.quantity),
    line.weight === undefined ? '' : `${Number(line.weight.toFixed(3))}`,
    formatAmount(line.value, content.currency),
    line.hsCode ?? '',
    line.originCountryCode ?? '',
  ]);
  const totalValue = content.lines.reduce((sum, line) => sum + line.value, 0);
  const totalWeight = content.lines.reduce((sum, line) => sum + (line.weight ?? 0), 0);
  form.table(
    [
      { title: 'Detailed description of contents', width: 200 },
      { title: 'Qty', width: 40, align: 'right' },
      { title: 'Net weight (kg)', width: 75, align: 'right' },
      { title: 'Value', width: 80, align: 'right' },
      { title: 'HS tariff no.', width: 70 },
      { title: 'Origin', width: 58.28 },
    ],
    [...lines, ['Total', '', totalWeight ? `${Number(totalWeight.toFixed(3))}` : '', formatAmount(totalValue, content.currency), '', '']],
  );
  const pairs: [string, string][] = [
    ['Currency', content.currency],
    ['Incoterm', content.incoterm ?? '-'],
    ['Invoice no.', content.invoiceNumber ?? '-'],
    ['Reference', content.reference ?? '-'],
    ['Tracking no.', content.trackingNumbers.join(', ') || '-'],
    ['Declaration types', content.typeCodes.join(', ') || '-'],
  ];
  form.fields(pairs);
  const d = content.declarant;
  form.paragraph(
    `I, ${d.firstName} ${d.lastName} (${d.city}), certify that the particulars given in this declaration are correct and that ` +
      'this item does not contain any dangerous article prohibited by legislation or by postal or customs regulations.',
  );
  form.signature([`Place and date: ${d.city}, ${createdAt.slice(0, 10)}`, `Signature of the declarant: ${d.firstName} ${d.lastName}`]);
  form.end();
  const { bytes, pages } = finish();
  return { bytes, pages, ...FILE_FORMATS.PDF };
}
