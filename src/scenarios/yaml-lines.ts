import { lazyModule } from '../util/lazy-module.js';

const yaml = lazyModule<typeof import('yaml')>('yaml');

/**
 * The 1-based line a field path (`scenario/rules/0/when/status`, as ScenarioError names fields)
 * points at in a YAML text: the deepest node of the path that exists, so a missing key points at
 * its parent. Undefined when the text does not parse or the path names nothing.
 *
 * @example lineOfField('name: x\nrules:\n  - when: {}\n', 'scenario/rules/0/when') // 3
 */
export function lineOfField(text: string, field: string): number | undefined {
  return lineFinder(text)(field);
}

/**
 * lineOfField for many fields of one text: the text is parsed once (a scenario with a thousand
 * violations must not be parsed a thousand times).
 * @example const lineOf = lineFinder(text); violations.map((v) => lineOf(v.field))
 */
export function lineFinder(text: string): (field: string) => number | undefined {
  let parsed: Parsed | undefined | null;
  return (field) => {
    try {
      if (parsed === undefined) parsed = parse(text);
      return parsed ? findLine(parsed, field) : undefined;
    } catch {
      // A hint only: a text the parser trips over gets its violations without lines.
      parsed = null;
      return undefined;
    }
  };
}

interface Parsed {
  document: ReturnType<ReturnType<typeof yaml>['parseDocument']>;
  lines: InstanceType<ReturnType<typeof yaml>['LineCounter']>;
}

function parse(text: string): Parsed | null {
  const { parseDocument, LineCounter } = yaml();
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines });
  return document.errors.length ? null : { document, lines };
}

function findLine({ document, lines }: Parsed, field: string): number | undefined {
  const { isMap, isSeq } = yaml();
  let node: unknown = document.contents;
  let line: number | undefined;
  const at = (range: [number, number, number] | null | undefined) => (range ? lines.linePos(range[0]).line : undefined);
  for (const segment of field.split('/').slice(1)) {
    if (isMap(node)) {
      const pair = node.items.find((item) => String((item.key as { value?: unknown } | null)?.value ?? item.key) === segment);
      if (!pair) break;
      line = at((pair.key as { range?: [number, number, number] } | null)?.range) ?? line;
      node = pair.value;
    } else if (isSeq(node)) {
      const item = node.items[Number(segment)];
      if (item === undefined) break;
      line = at((item as { range?: [number, number, number] }).range) ?? line;
      node = item;
    } else break;
  }
  return line ?? at((document.contents as { range?: [number, number, number] } | null)?.range);
}
