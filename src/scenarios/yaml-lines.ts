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
  try {
    return findLine(text, field);
  } catch {
    // A hint only: a text the parser trips over gets its violations without lines.
    return undefined;
  }
}

function findLine(text: string, field: string): number | undefined {
  const { parseDocument, LineCounter, isMap, isSeq } = yaml();
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines });
  if (document.errors.length) return undefined;
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
