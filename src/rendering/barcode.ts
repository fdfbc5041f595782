import { deflateSync } from 'node:zlib';
import type BwipJs from 'bwip-js';
import { lazyModule } from '../util/lazy-module.js';

const bwipjs = lazyModule<typeof BwipJs>('bwip-js');

/**
 * Code 128 barcodes, encoded by bwip-js and rasterised here. bwip-js' own PNG writer is
 * asynchronous (a zlib stream); encoding with `raw` and writing pixels ourselves keeps document
 * rendering synchronous, so a booking can create its labels inside one service call.
 */

/**
 * The module pattern of a Code 128 symbol (true = bar), without quiet zones.
 * @example encodeCode128('00340434161094000011').length // 35 modules per symbol character…
 */
export function encodeCode128(text: string): boolean[] {
  const [symbol] = bwipjs().raw({ bcid: 'code128', text }) as { sbs: number[] }[];
  const modules: boolean[] = [];
  symbol.sbs.forEach((width, index) => {
    for (let i = 0; i < width; i++) modules.push(index % 2 === 0);
  });
  return modules;
}

export interface BarcodeImageOptions {
  /** Width of one module in pixels (≥ 1). */
  moduleWidth: number;
  /** Bar height in pixels. */
  height: number;
  /** Quiet zone on each side, in modules; Code 128 needs at least 10. */
  quietZone?: number;
}

/** A grayscale bitmap: one byte per pixel, 0 = black, 255 = white. */
export interface Bitmap {
  width: number;
  height: number;
  data: Buffer;
  /** Bytes per pixel: 1 grayscale (the default), 4 RGBA. */
  channels?: 1 | 4;
}

/**
 * Draws a Code 128 symbol into a new bitmap.
 * @example const bitmap = barcodeBitmap('JD014600003SE', { moduleWidth: 3, height: 120 })
 */
export function barcodeBitmap(text: string, options: BarcodeImageOptions): Bitmap {
  const modules = encodeCode128(text);
  const quiet = options.quietZone ?? 10;
  const moduleWidth = Math.max(1, Math.round(options.moduleWidth));
  const width = (modules.length + 2 * quiet) * moduleWidth;
  const height = Math.max(1, Math.round(options.height));
  const row = Buffer.alloc(width, 255);
  modules.forEach((bar, index) => {
    if (bar) row.fill(0, (quiet + index) * moduleWidth, (quiet + index + 1) * moduleWidth);
  });
  const data = Buffer.alloc(width * height);
  for (let y = 0; y < height; y++) row.copy(data, y * width);
  return { width, height, data };
}

/**
 * The one PNG encoder of the mock (labels, barcodes in PDFs, carrier logos): an 8-bit grayscale
 * or RGBA PNG, synchronously and deterministically, with the resolution in a pHYs chunk.
 * Written here rather than with pngjs: pngjs writes no pHYs (a label's dpi), and its pure-JS row
 * filtering cost ~4x the time of a plain zlib pass; labels (mostly flat white) compress well
 * without filters.
 */
export function encodePng(bitmap: Bitmap, dpi?: number): Buffer {
  const { width, height, data } = bitmap;
  const channels = bitmap.channels ?? 1;
  const rowBytes = width * channels;
  const raw = Buffer.alloc((rowBytes + 1) * height);
  // Each scanline: filter type 0 (none), then the row's pixels.
  for (let y = 0; y < height; y++) data.copy(raw, y * (rowBytes + 1) + 1, y * rowBytes, (y + 1) * rowBytes);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(channels === 4 ? 6 : 0, 9); // colour type 6: RGBA, 0: grayscale
  const chunks = [PNG_SIGNATURE, chunk('IHDR', header)];
  if (dpi) {
    const physical = Buffer.alloc(9);
    const pixelsPerMeter = Math.round(dpi / 0.0254);
    physical.writeUInt32BE(pixelsPerMeter, 0);
    physical.writeUInt32BE(pixelsPerMeter, 4);
    physical.writeUInt8(1, 8); // unit: metre
    chunks.push(chunk('pHYs', physical));
  }
  // Level 1: ~10x faster than the default level on a 300 dpi label for ~20% more bytes.
  chunks.push(chunk('IDAT', deflateSync(raw, { level: 1 })), chunk('IEND', Buffer.alloc(0)));
  return Buffer.concat(chunks);
}

/**
 * A Code 128 symbol as a PNG, for embedding in PDFs.
 * @example barcodePng('00340434161094000011', { moduleWidth: 2, height: 80 })
 */
export function barcodePng(text: string, options: BarcodeImageOptions): Buffer {
  return encodePng(barcodeBitmap(text, options));
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** One PNG chunk: length, type, data, CRC over type and data. */
function chunk(type: string, body: Buffer): Buffer {
  const out = Buffer.alloc(12 + body.length);
  out.writeUInt32BE(body.length, 0);
  out.write(type, 4, 'latin1');
  body.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
  return out;
}
