import { isDeepStrictEqual } from 'node:util';
import { LineCounter, parseDocument, visit, type Scalar } from 'yaml';

/**
 * A plain (unquoted) scalar that a YAML 1.1 loader (PyYAML and the tools built on it) reads
 * as something else than a YAML 1.2 loader does: `2026-01-15T09:30:00.000Z` (a timestamp, not
 * a string), `NO`/`on`/`y` (booleans), `1:20` (sexagesimal 80), `0777` (octal 511), `1_000`.
 */
export interface Yaml11Difference {
  line: number;
  column: number;
  /** The scalar as written. */
  source: string;
  /** What YAML 1.2 (the `yaml` package's default, our loader) reads. */
  yaml12: unknown;
  /** What YAML 1.1 reads. */
  yaml11: unknown;
  /** Offsets of the scalar in the text: [start, end). */
  range: [number, number];
}

interface PlainScalar {
  node: Scalar;
  value: unknown;
}

function plainScalars(text: string, version: '1.1' | '1.2'): PlainScalar[] {
  const document = parseDocument(text, { version });
  const out: PlainScalar[] = [];
  visit(document, {
    Scalar(_key, node) {
      if (node.type === 'PLAIN') out.push({ node, value: node.value });
    },
  });
  return out;
}

/**
 * Every plain scalar, key or value, that YAML 1.1 types differently than YAML 1.2 (the two
 * parses walk the same nodes in the same order; values are compared deeply, so a 1.1 Date
 * differs from the 1.2 string it was written as).
 *
 * @example yaml11Differences('countries: [DE, NO]\n') // [{ line: 1, column: 16, source: 'NO', yaml12: 'NO', yaml11: false, … }]
 */
export function yaml11Differences(text: string): Yaml11Difference[] {
  const v12 = plainScalars(text, '1.2');
  const v11 = plainScalars(text, '1.1');
  if (v12.length !== v11.length) throw new Error(`the YAML 1.1 and 1.2 parses have different shapes (${v11.length} vs ${v12.length} plain scalars)`);
  const lines = new LineCounter();
  parseDocument(text, { lineCounter: lines });
  const out: Yaml11Difference[] = [];
  v12.forEach((a, i) => {
    const b = v11[i];
    if (isDeepStrictEqual(a.value, b.value)) return;
    const [start, end] = a.node.range ?? [0, 0];
    const { line, col } = lines.linePos(start);
    out.push({ line, column: col, source: text.slice(start, end), yaml12: a.value, yaml11: b.value, range: [start, end] });
  });
  return out;
}

/**
 * Quotes the scalars of `yaml11Differences` that are strings in YAML 1.2 (double quotes, JSON
 * escaping), touching nothing else in the text. Differences that are not strings in 1.2 (an
 * `0777` that 1.2 reads as 777) are left for a person: quoting them would change the document.
 */
export function quoteYaml11Strings(text: string): { text: string; quoted: number; left: Yaml11Difference[] } {
  const differences = yaml11Differences(text);
  let out = text;
  let quoted = 0;
  const left: Yaml11Difference[] = [];
  for (const difference of [...differences].reverse()) {
    if (typeof difference.yaml12 !== 'string' || difference.source !== difference.yaml12) {
      left.push(difference);
      continue;
    }
    const [start, end] = difference.range;
    out = `${out.slice(0, start)}${JSON.stringify(difference.yaml12)}${out.slice(end)}`;
    quoted += 1;
  }
  return { text: out, quoted, left: left.reverse() };
}
