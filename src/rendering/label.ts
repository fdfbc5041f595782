import { renderPdfLabel } from './label-pdf.js';
import { renderPngLabel } from './label-png.js';
import { renderZplLabel } from './label-zpl.js';
import type { LabelContent, LabelRendering, RenderedDocument } from './model.js';
import type { GlyphCache } from './raster.js';

/**
 * Renders a label in the format a Shipment Channel's documentRendering asks for.
 * Resolution default per the contract: 203 dpi for ZPL, 300 otherwise.
 * `glyphs` (PNG only) reuses rasterised characters across labels of one mock instance.
 * @example renderLabel(content, { format: 'PDF', size: 'A6' }, clock.nowIso())
 */
export function renderLabel(content: LabelContent, rendering: LabelRendering, createdAt: string, glyphs?: GlyphCache): RenderedDocument {
  switch (rendering.format) {
    case 'PNG':
      return renderPngLabel(content, rendering.size, rendering.resolutionDpi ?? 300, createdAt, glyphs);
    case 'ZPL':
      return renderZplLabel(content, rendering.size, rendering.resolutionDpi ?? 203, createdAt);
    default:
      return renderPdfLabel(content, rendering.size, createdAt);
  }
}
