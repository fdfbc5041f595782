import { FILE_FORMATS, type ManifestContent, type RenderedDocument } from './model.js';
import { createPdf } from './pdf.js';
import { A4, createFormWriter, partyBox } from './pdf-form.js';
import { partyLines } from './text.js';

/**
 * The handover list of a Shipment Dispatch as an A4 PDF: carrier, pickup, one row per parcel
 * (tracking number, booking reference, receiver, weight), totals and signature fields for
 * the shipper and the driver. Long dispatches continue on further pages.
 * @example renderManifest(content, clock.nowIso()).pages // ≥ 1
 */
export function renderManifest(content: ManifestContent, createdAt: string): RenderedDocument {
  const { doc, finish } = createPdf({ size: A4, createdAt, title: `Shipment manifest ${content.shipmentManifestId}` });
  const form = createFormWriter(doc, { specimen: content.specimen, footer: `Manifest ${content.shipmentManifestId}` });
  form.title('SHIPMENT MANIFEST', `Carrier: ${content.carrier.name}`);
  const parcels = content.entries.flatMap((entry) => entry.parcels);
  const totalKg = parcels.reduce((sum, p) => sum + p.weightKg, 0);
  form.fields([
    ['Manifest', content.shipmentManifestId],
    ['Dispatch', content.shipmentDispatchId],
    ['Pickup date', content.pickupDate ?? '-'],
    ['Pickup window', content.pickupWindow ? `${content.pickupWindow.from}-${content.pickupWindow.to}` : '-'],
    ['Shipments', String(content.entries.length)],
    ['Parcels', String(parcels.length)],
    ['Total weight', `${Number(totalKg.toFixed(3))} kg`],
    ['Reference', content.reference ?? '-'],
  ]);
  if (content.pickupAddress) form.boxes([partyBox('Pickup address', content.pickupAddress)], 84);
  let n = 0;
  const rows = content.entries.flatMap((entry) =>
    entry.parcels.map((parcel) => {
      n += 1;
      const receiver = partyLines(entry.receiver);
      return [
        String(n),
        parcel.trackingNumber,
        entry.reference ?? '',
        `${entry.receiver.name}, ${receiver[receiver.length - 2] ?? ''} ${entry.receiver.countryCode}`,
        entry.service ?? '',
        `${Number(parcel.weightKg.toFixed(3))}`,
      ];
    }),
  );
  form.table(
    [
      { title: '#', width: 28, align: 'right' },
      { title: 'Tracking number', width: 120 },
      { title: 'Reference', width: 80 },
      { title: 'Receiver', width: 190 },
      { title: 'Service', width: 60 },
      { title: 'kg', width: 45.28, align: 'right' },
    ],
    rows,
  );
  form.paragraph(`Received ${parcels.length} parcel(s) with a total weight of ${Number(totalKg.toFixed(3))} kg in good order.`);
  form.signature(['Shipper: name, date and signature', 'Driver: name, date and signature']);
  form.end();
  const { bytes, pages } = finish();
  return { bytes, pages, ...FILE_FORMATS.PDF };
}
