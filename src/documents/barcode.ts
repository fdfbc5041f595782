import bwipjs from 'bwip-js';
import { PNG } from 'pngjs';

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
  const [symbol] = bwipjs.raw({ bcid: 'code128', text }) as { sbs: number[] }[];
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

/** Encodes a grayscale bitmap as PNG (synchronous; deterministic bytes). */
export function encodePng(bitmap: Bitmap, dpi?: number): Buffer {
  const png = new PNG({ width: bitmap.width, height: bitmap.height, colorType: 0, inputColorType: 0, inputHasAlpha: false });
  png.data = bitmap.data;
  // Filter 0 (none): labels are mostly flat white, and adaptive filtering costs 4x the time.
  const bytes = PNG.sync.write(png, { colorType: 0, inputColorType: 0, inputHasAlpha: false, filterType: 0 });
  return dpi ? withPhysicalDpi(bytes, dpi) : bytes;
}

/**
 * A Code 128 symbol as a PNG, for embedding in PDFs.
 * @example barcodePng('00340434161094000011', { moduleWidth: 2, height: 80 })
 */
export function barcodePng(text: string, options: BarcodeImageOptions): Buffer {
  return encodePng(barcodeBitmap(text, options));
}

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

/** Inserts a pHYs chunk after IHDR so viewers and printers know the intended resolution. */
function withPhysicalDpi(png: Buffer, dpi: number): Buffer {
  const pixelsPerMeter = Math.round(dpi / 0.0254);
  const body = Buffer.alloc(13);
  body.write('pHYs', 0, 'latin1');
  body.writeUInt32BE(pixelsPerMeter, 4);
  body.writeUInt32BE(pixelsPerMeter, 8);
  body.writeUInt8(1, 12);
  const chunk = Buffer.alloc(21);
  chunk.writeUInt32BE(9, 0);
  body.copy(chunk, 4);
  chunk.writeUInt32BE(crc32(body), 17);
  // PNG signature (8) + IHDR chunk (4 length + 4 type + 13 data + 4 crc) = 33 bytes.
  return Buffer.concat([png.subarray(0, 33), chunk, png.subarray(33)]);
}
