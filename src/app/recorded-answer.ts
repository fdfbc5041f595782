import type { Answer } from '../http/types.js';
import type { RespondEffect } from '../scenarios/model.js';

/** Headers the mock decides itself when it writes a recorded answer (framing, connection). */
const FRAMING = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'content-type']);

/** Whether a respond effect is a recorded answer (a body form) rather than a problem. */
export function isRecordedAnswer(respond: RespondEffect): boolean {
  return respond.body !== undefined || respond.text !== undefined || respond.base64 !== undefined;
}

/**
 * The answer a scenario's recorded respond effect stands for: its status, its headers (framing
 * headers aside: the mock writes its own Content-Length) and its body — a JSON value written as
 * JSON, text as UTF-8, base64 as the bytes it encodes. An empty text is an answer without a body.
 *
 * @example recordedAnswer({ status: 200, headers: { 'Content-Type': 'application/json' }, body: { id: 'p_1' } })
 * // { status: 200, contentType: 'application/json', payload: '{"id":"p_1"}', json: { id: 'p_1' }, headers: {} }
 */
export function recordedAnswer(respond: RespondEffect): Answer {
  const headers: Record<string, string> = {};
  let contentType: string | undefined;
  for (const [name, value] of Object.entries(respond.headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower === 'content-type') contentType = value;
    if (!FRAMING.has(lower)) headers[name] = value;
  }
  if (respond.body !== undefined) {
    return { status: respond.status, contentType: contentType ?? 'application/json', payload: JSON.stringify(respond.body), json: respond.body, headers };
  }
  const payload = respond.base64 !== undefined ? Buffer.from(respond.base64, 'base64') : respond.text !== undefined && respond.text.length > 0 ? respond.text : undefined;
  if (payload === undefined || payload.length === 0) return { status: respond.status, headers };
  const type = contentType ?? (respond.base64 !== undefined ? 'application/octet-stream' : 'text/plain; charset=utf-8');
  return { status: respond.status, contentType: type, payload, ...(typeof payload === 'string' ? jsonOf(payload, type) : {}), headers };
}

/** The JSON value of a text answer of a JSON media type (for checking it against the contract), if it parses. */
function jsonOf(text: string, contentType: string): { json?: unknown } {
  if (!/[/+]json\b/i.test(contentType)) return {};
  try {
    return { json: JSON.parse(text) as unknown };
  } catch {
    return {};
  }
}
