import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No function in src/ runs over MAX_LINES lines (issue 24: "split factories into named parts").
 * A factory that long does several jobs; its parts get names (STYLE.md, "Shape"). Lines are
 * counted from the first to the last line of the function's text, nested functions included,
 * so a factory counts everything it defines inline.
 */
const MAX_LINES = 120;

const SRC = resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

interface FunctionLength {
  file: string;
  name: string;
  line: number;
  lines: number;
}

/** The name a function is known by: its own, or that of the variable, property or method it is. */
function nameOf(node: ts.Node, source: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name) return named.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) return parent.name.getText(source);
  return '(anonymous)';
}

function isFunction(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** Every function with a body in the file, with its length in lines. */
function functionLengths(file: string): FunctionLength[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunction(node) && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file: relative(SRC, file).split(sep).join('/'), name: nameOf(node, source), line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const ALL = sourceFiles(SRC).flatMap(functionLengths);
const describeLong = (f: FunctionLength) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`;

describe(`functions in src/ (non-test files) are at most ${MAX_LINES} lines`, () => {
  it('finds the functions it measures (the measurement itself works)', () => {
    expect(ALL.length).toBeGreaterThan(1000);
    // The pipeline factory: a named function declaration, measured first line to last.
    const createApp = ALL.find((f) => f.file === 'app/create-app.ts' && f.name === 'createApp');
    expect(createApp?.lines).toBeGreaterThan(50);
    // Test files are not measured (this one defines functionLengths).
    expect(ALL.some((f) => f.name === 'functionLengths')).toBe(false);
  });

  it(`has no function over ${MAX_LINES} lines`, () => {
    const long = ALL.filter((f) => f.lines > MAX_LINES).map(describeLong);
    expect(long).toEqual([]);
  });
});

if (process.env.SHIPMOCK_FUNCTION_LENGTHS) {
  // SHIPMOCK_FUNCTION_LENGTHS=100 npx vitest run test/architecture/function-length.test.ts: the list over that many lines.
  const over = Number(process.env.SHIPMOCK_FUNCTION_LENGTHS);
  console.log(ALL.filter((f) => f.lines > over).sort((a, b) => b.lines - a.lines).map(describeLong).join('\n'));
}
