import { ALL_TYPES, COUNT_KEYWORDS, flattenSchema, isTighter, type FlatSchema, type NumericBound } from './flatten.js';
import { refsIn, type DocumentSet } from './load.js';
import { deref, isRef, refTarget, showLoc, type Loc } from './resolve.js';
import { patternLength } from './pattern-length.js';
import { ruleById } from './rules.js';

/**
 * Compares two JSON schemas for a client. `request`: the client writes values of the schema and
 * the server must keep accepting them (narrowing breaks, widening is safe). `response`: the
 * client reads them and must keep understanding them (a removed or newly optional property
 * breaks, widening may break, narrowing is safe).
 */
export type Direction = 'request' | 'response';

/** One change found inside a schema, with its path from the schema's root. */
export interface SchemaChange {
  rule: string;
  /** Segments from the compared schema's root: property names, '[]' items, '[0]' tuple items, '{*}' map values, 'oneOf[Name]'. */
  path: string[];
  reason: string;
  oldPointer?: string;
  newPointer?: string;
}

/** Formats (JSON Schema 2020-12 §7.3, the OpenAPI format registry) whose values all fit another's. */
const WIDER_FORMATS: Record<string, string[]> = {
  int32: ['int64'],
  float: ['double'],
  uri: ['iri', 'uri-reference', 'iri-reference'],
  'uri-reference': ['iri-reference'],
  iri: ['iri-reference'],
  email: ['idn-email'],
  hostname: ['idn-hostname'],
};
const KNOWN_FORMATS = new Set(['date-time', 'date', 'time', 'duration', 'email', 'idn-email', 'hostname', 'idn-hostname', 'ipv4', 'ipv6', 'uri', 'uri-reference', 'iri', 'iri-reference', 'uuid', 'uri-template', 'json-pointer', 'relative-json-pointer', 'regex', 'int32', 'int64', 'float', 'double', 'password', 'byte', 'binary']);

const MAX_LISTED = 6;
function listValues(values: Iterable<string>): string {
  const list = [...values];
  return list.length > MAX_LISTED ? `${list.slice(0, MAX_LISTED).join(', ')} and ${list.length - MAX_LISTED} more` : list.join(', ');
}

function showTypes(set: Set<string> | undefined): string {
  if (!set) return 'any type';
  if (set.size === 0) return 'nothing';
  const list = [...set].filter((t) => !(t === 'integer' && set.has('number')));
  return list.join(' | ');
}

function showBound(side: 'lower' | 'upper', bound: NumericBound | undefined): string {
  if (!bound) return side === 'lower' ? 'no minimum' : 'no maximum';
  return `${side === 'lower' ? (bound.exclusive ? '>' : '≥') : bound.exclusive ? '<' : '≤'} ${bound.value}`;
}

/** Lengths a format fixes (JSON Schema 2020-12 §7.3, RFC 4122, RFC 3339 full-date). */
const FORMAT_LENGTHS: Record<string, { min: number; max: number }> = { uuid: { min: 36, max: 36 }, date: { min: 10, max: 10 } };

/** Ranges OpenAPI's integer formats fix. */
const FORMAT_RANGES: Record<string, { lower: number; upper: number }> = { int32: { lower: -(2 ** 31), upper: 2 ** 31 - 1 }, int64: { lower: -(2 ** 63), upper: 2 ** 63 - 1 } };

/** A schema's numeric bound on one side in effect: its own, or its integer format's when that is tighter. */
function impliedBound(flat: FlatSchema, side: 'lower' | 'upper'): { value: number; exclusive: boolean } | undefined {
  const own = flat[side];
  const range = flat.format && FORMAT_RANGES[flat.format.value];
  const fromFormat = range ? { value: range[side], exclusive: false } : undefined;
  if (!own) return fromFormat;
  if (!fromFormat) return own;
  return isTighter(side, own, fromFormat) ? fromFormat : own;
}

/** The shortest or longest string a schema admits, from minLength/maxLength, patterns, a string enum and the format. */
function impliedLength(flat: FlatSchema, side: 'min' | 'max'): number {
  const bounds: number[] = [];
  const explicit = flat.counts.get(side === 'min' ? 'minLength' : 'maxLength')?.value;
  if (explicit !== undefined) bounds.push(explicit);
  for (const pattern of flat.patterns.keys()) {
    const length = patternLength(pattern);
    if (length) bounds.push(length[side]);
  }
  const values = flat.enum ? [...flat.enum.values.values()] : [];
  if (values.length && values.every((v) => typeof v === 'string')) {
    const lengths = values.map((v) => [...(v as string)].length);
    bounds.push(side === 'min' ? Math.min(...lengths) : Math.max(...lengths));
  }
  const format = flat.format && FORMAT_LENGTHS[flat.format.value];
  if (format) bounds.push(format[side]);
  if (!bounds.length) return side === 'min' ? 0 : Infinity;
  return side === 'min' ? Math.max(...bounds) : Math.min(...bounds);
}

/** Reports one change of the schema being compared (its direction and location already bound). */
type Emit = (suffix: string, reason: string, oldLoc: Loc | undefined, newLoc: Loc | undefined, path?: string[]) => void;

interface Frame {
  key: string;
  lowestCycle: number;
}

/**
 * Compares schemas of two document sets. Results for a pair of `$ref` targets are kept, so a
 * component used by many operations is compared once; recursive schemas are cut where a pair is
 * already being compared (the comparison up the stack reports what differs there).
 *
 * @example new SchemaDiffer(oldSet, newSet).compare([oldLoc], [newLoc], 'response')
 */
export class SchemaDiffer {
  private readonly memo = new Map<string, SchemaChange[]>();
  private readonly stack: Frame[] = [];
  private readonly inProgress = new Map<string, number>();
  private derivedCount = 0;
  private readonly flats = new Map<string, FlatSchema>();

  /** `$ref` targets (document name + pointer) equal in both versions down to everything they reference. */
  private readonly unchanged: Set<string>;

  constructor(
    private readonly oldSet: DocumentSet,
    private readonly newSet: DocumentSet,
  ) {
    this.unchanged = unchangedTargets(oldSet, newSet);
  }

  /** The changes between two schemas (each given as locations that all apply; none = no schema). */
  compare(oldLocs: Loc[], newLocs: Loc[], direction: Direction): SchemaChange[] {
    const out: SchemaChange[] = [];
    // Most of a contract is the same in both versions: a schema written alike whose references all reach unchanged targets has nothing to report.
    if (oldLocs.length === 1 && newLocs.length === 1 && this.sameEverywhere(oldLocs[0], newLocs[0])) return out;
    this.compareInto(oldLocs, newLocs, direction, [], out);
    return out;
  }

  private sameEverywhere(o: Loc, n: Loc): boolean {
    if (o.derived || n.derived || this.oldSet.nameOf(o.doc) !== this.newSet.nameOf(n.doc)) return false;
    if (JSON.stringify(o.node) !== JSON.stringify(n.node)) return false;
    return refsIn(o.node).every((reference) => {
      const target = refTarget(this.oldSet, o.doc, reference);
      return this.unchanged.has(`${this.oldSet.nameOf(target.doc)}${target.pointer}`);
    });
  }

  /** Two pure `$ref`s to the same unchanged target. */
  private sameTarget(oldLocs: Loc[], newLocs: Loc[]): boolean {
    if (oldLocs.length !== 1 || newLocs.length !== 1) return false;
    const [o] = oldLocs;
    const [n] = newLocs;
    if (o.derived || n.derived || !isPureRef(o.node) || !isPureRef(n.node)) return false;
    const a = deref(this.oldSet, o);
    const b = deref(this.newSet, n);
    const key = `${this.oldSet.nameOf(a.doc)}${a.pointer}`;
    return key === `${this.newSet.nameOf(b.doc)}${b.pointer}` && this.unchanged.has(key);
  }

  /** flattenSchema, once per location list and side. */
  private flatten(set: DocumentSet, locs: Loc[]): FlatSchema {
    const key = `${set === this.oldSet ? 'o' : 'n'}|${locs.map((l) => `${l.doc}${l.pointer}${l.derived ?? ''}`).join('+')}`;
    let flat = this.flats.get(key);
    if (!flat) {
      flat = flattenSchema(set, locs);
      this.flats.set(key, flat);
    }
    return flat;
  }

  private keyOf(set: DocumentSet, locs: Loc[]): string {
    return locs
      .map((loc) => {
        if (loc.derived) return `${loc.doc}${loc.pointer}${loc.derived}`;
        const target = isPureRef(loc.node) ? deref(set, loc) : loc;
        return `${target.doc}${target.pointer}`;
      })
      .join('+');
  }

  private compareInto(oldLocs: Loc[], newLocs: Loc[], direction: Direction, path: string[], out: SchemaChange[]): void {
    if (this.sameTarget(oldLocs, newLocs)) return;
    const key = `${direction}|${this.keyOf(this.oldSet, oldLocs)}|${this.keyOf(this.newSet, newLocs)}`;
    const cached = this.memo.get(key);
    let local: SchemaChange[];
    if (cached) {
      local = cached;
    } else {
      const depth = this.inProgress.get(key);
      if (depth !== undefined) {
        // A cycle: this pair is being compared further up; what differs is reported there.
        const top = this.stack[this.stack.length - 1];
        if (top) top.lowestCycle = Math.min(top.lowestCycle, depth);
        return;
      }
      const frame: Frame = { key, lowestCycle: Infinity };
      const index = this.stack.length;
      this.stack.push(frame);
      this.inProgress.set(key, index);
      local = [];
      try {
        this.compareSchemas(oldLocs, newLocs, direction, local);
      } finally {
        this.stack.pop();
        this.inProgress.delete(key);
      }
      const parent = this.stack[this.stack.length - 1];
      if (parent) parent.lowestCycle = Math.min(parent.lowestCycle, frame.lowestCycle);
      // A result that leaned on a pair still open further up is incomplete on its own: not kept.
      if (frame.lowestCycle >= index) this.memo.set(key, local);
    }
    if (path.length === 0) out.push(...local);
    else for (const change of local) out.push({ ...change, path: [...path, ...change.path] });
  }

  private compareSchemas(oldLocs: Loc[], newLocs: Loc[], direction: Direction, out: SchemaChange[]): void {
    const o = this.flatten(this.oldSet, oldLocs);
    const n = this.flatten(this.newSet, newLocs);
    if ((o.variants.length > 0) !== (n.variants.length > 0)) {
      // One side is a oneOf/anyOf, the other a single schema: match the single one to an alternative.
      // A type array facing a oneOf/anyOf is read as one alternative per type.
      const oldBranches = o.variants.length ? this.expandVariants(o) : this.splitByType(o, oldLocs);
      const newBranches = n.variants.length ? this.expandVariants(n) : this.splitByType(n, newLocs);
      this.matchBranches(oldBranches, newBranches, o, n, direction, out, o.variants[0]?.kind ?? n.variants[0]?.kind ?? 'oneOf');
      return;
    }
    this.compareFlat(o, n, direction, out);
  }

  private emit(out: SchemaChange[], direction: Direction, suffix: string, reason: string, oldLoc: Loc | undefined, newLoc: Loc | undefined, path: string[] = []): void {
    const rule = `${direction}-${suffix}`;
    ruleById(rule);
    out.push({ rule, path, reason, oldPointer: showLoc(this.oldSet, oldLoc), newPointer: showLoc(this.newSet, newLoc) });
  }

  private compareFlat(o: FlatSchema, n: FlatSchema, dir: Direction, out: SchemaChange[]): void {
    const emit: Emit = (suffix, reason, oldLoc, newLoc, path = []) => this.emit(out, dir, suffix, reason, oldLoc, newLoc, path);
    if (this.compareTypes(o, n, dir, emit)) return;
    this.compareEnums(o, n, dir, emit);
    this.compareBounds(o, n, dir, emit);
    this.comparePatternsAndFormats(o, n, dir, emit);
    this.compareObjects(o, n, dir, out, emit);
    this.compareArrays(o, n, dir, out);
    this.compareVariants(o, n, dir, emit, out);
    this.compareConditionals(o, n, dir, emit, out);
    this.compareOtherKeywords(o, n, dir, emit);
  }

  /** Types; true when the two are unrelated types, whose other keywords say nothing more. */
  private compareTypes(o: FlatSchema, n: FlatSchema, dir: Direction, emit: Emit): boolean {
    // Types (a missing type allows all; 'number' includes 'integer').
    const oldTypes = o.types?.set ?? new Set(ALL_TYPES);
    const newTypes = n.types?.set ?? new Set(ALL_TYPES);
    const removedTypes = [...oldTypes].filter((t) => !newTypes.has(t));
    const addedTypes = [...newTypes].filter((t) => !oldTypes.has(t));
    const typeAt = [o.types?.at ?? o.anchor, n.types?.at ?? n.anchor] as const;
    if (removedTypes.length && addedTypes.length && oldTypes.size && newTypes.size && ![...oldTypes].some((t) => newTypes.has(t))) {
      emit(dir === 'request' ? 'type-narrowed' : 'type-changed', `type ${showTypes(o.types?.set)} → ${showTypes(n.types?.set)}`, ...typeAt);
      return true; // the other keywords of two unrelated types say nothing more
    }
    if (removedTypes.length) {
      const only = removedTypes.filter((t) => !(t === 'integer' && removedTypes.includes('number')));
      emit('type-narrowed', only.length === 1 && only[0] === 'null' ? 'no longer nullable' : `type ${showTypes(o.types?.set)} → ${showTypes(n.types?.set)}`, ...typeAt);
    }
    if (addedTypes.length) {
      const only = addedTypes.filter((t) => !(t === 'integer' && addedTypes.includes('number')));
      emit('type-widened', only.length === 1 && only[0] === 'null' ? 'may now be null' : `type ${showTypes(o.types?.set)} → ${showTypes(n.types?.set)}`, ...typeAt);
    }
    return false;
  }

  /** Enumerations. */
  private compareEnums(o: FlatSchema, n: FlatSchema, dir: Direction, emit: Emit): void {
    // Enumerations (const is a one-value enum).
    if (o.enum || n.enum) {
      if (!o.enum) emit('enum-narrowed', `values limited to ${listValues(n.enum!.values.keys())}`, o.anchor, n.enum!.at);
      else if (!n.enum) emit('enum-widened', `values no longer limited to ${listValues(o.enum.values.keys())}`, o.enum.at, n.anchor);
      else {
        const removed = [...o.enum.values.keys()].filter((k) => !n.enum!.values.has(k));
        const added = [...n.enum.values.keys()].filter((k) => !o.enum!.values.has(k));
        if (removed.length) emit('enum-narrowed', `${removed.length === 1 ? 'value' : 'values'} ${listValues(removed)} removed`, o.enum.at, n.enum.at);
        if (added.length) emit('enum-widened', `new ${added.length === 1 ? 'value' : 'values'} ${listValues(added)}`, o.enum.at, n.enum.at);
      }
    }
  }

  /** Bounds: minimum/maximum, counts, multipleOf, uniqueItems. */
  private compareBounds(o: FlatSchema, n: FlatSchema, dir: Direction, emit: Emit): void {
    // Bounds.
    for (const side of ['lower', 'upper'] as const) {
      const before = o[side];
      const after = n[side];
      if (!before && !after) continue;
      // Compared in effect: `maximum: 2147483647` beside `format: int32` admits what the format did.
      const was = impliedBound(o, side);
      const is = impliedBound(n, side);
      const reason = `${showBound(side, before)} → ${showBound(side, after)}`;
      if (is && (!was || isTighter(side, was, is))) emit('bound-tightened', reason, before?.at ?? o.anchor, after?.at ?? n.anchor);
      else if (was && (!is || isTighter(side, is, was))) emit('bound-loosened', reason, before?.at ?? o.anchor, after?.at ?? n.anchor);
    }
    for (const keyword of COUNT_KEYWORDS) {
      const before = o.counts.get(keyword);
      const after = n.counts.get(keyword);
      if (before?.value === after?.value) continue;
      const isMin = keyword.startsWith('min');
      // What the schema admits in effect: minX 0 is no minimum; a string's length also follows from its pattern, enum or format.
      const effective = (flat: FlatSchema) => (keyword === 'minLength' || keyword === 'maxLength' ? impliedLength(flat, isMin ? 'min' : 'max') : (flat.counts.get(keyword)?.value ?? (isMin ? 0 : Infinity)));
      const was = effective(o);
      const is = effective(n);
      if (was === is) continue;
      const tighter = isMin ? is > was : is < was;
      emit(tighter ? 'bound-tightened' : 'bound-loosened', `${keyword} ${before?.value ?? 'none'} → ${after?.value ?? 'none'}`, before?.at ?? o.anchor, after?.at ?? n.anchor);
    }
    if (o.multipleOf?.value !== n.multipleOf?.value) {
      const before = o.multipleOf?.value;
      const after = n.multipleOf?.value;
      const looser = after === undefined || (before !== undefined && Number.isInteger(before / after));
      emit(looser ? 'bound-loosened' : 'bound-tightened', `multipleOf ${before ?? 'none'} → ${after ?? 'none'}`, o.multipleOf?.at ?? o.anchor, n.multipleOf?.at ?? n.anchor);
    }
    if (!!o.uniqueItems !== !!n.uniqueItems) emit(n.uniqueItems ? 'bound-tightened' : 'bound-loosened', n.uniqueItems ? 'items must now be unique' : 'items no longer need to be unique', o.uniqueItems ?? o.anchor, n.uniqueItems ?? n.anchor);
  }

  /** Patterns and formats. */
  private comparePatternsAndFormats(o: FlatSchema, n: FlatSchema, dir: Direction, emit: Emit): void {
    // Patterns and formats.
    const addedPatterns = [...n.patterns.keys()].filter((p) => !o.patterns.has(p));
    const removedPatterns = [...o.patterns.keys()].filter((p) => !n.patterns.has(p));
    const firstOld = removedPatterns.length ? o.patterns.get(removedPatterns[0]) : o.anchor;
    const firstNew = addedPatterns.length ? n.patterns.get(addedPatterns[0]) : n.anchor;
    if (addedPatterns.length && removedPatterns.length) emit('pattern-changed', `pattern ${removedPatterns.join(' & ')} → ${addedPatterns.join(' & ')}`, firstOld, firstNew);
    else if (addedPatterns.length) emit('pattern-added', `pattern ${addedPatterns.join(' & ')} added`, firstOld, firstNew);
    else if (removedPatterns.length) emit('pattern-removed', `pattern ${removedPatterns.join(' & ')} removed`, firstOld, firstNew);
    if (o.format?.value !== n.format?.value) {
      const before = o.format?.value;
      const after = n.format?.value;
      const widened = after === undefined || (before !== undefined && WIDER_FORMATS[before]?.includes(after));
      const narrowed = before === undefined || (after !== undefined && WIDER_FORMATS[after]?.includes(before));
      const reason = before === undefined ? `format ${after} added` : after === undefined ? `format ${before} dropped` : `format ${before} → ${after}`;
      const at = [o.format?.at ?? o.anchor, n.format?.at ?? n.anchor] as const;
      // A custom format (say http-url) may well be a narrowing of the one it replaces; nothing here can tell.
      const custom = !!before && !!after && (!KNOWN_FORMATS.has(before) || !KNOWN_FORMATS.has(after));
      if (dir === 'request') emit(widened ? 'format-widened' : 'format-narrowed', reason, ...at);
      else emit(narrowed ? 'format-narrowed' : widened ? 'format-widened' : custom ? 'format-custom-changed' : 'format-changed', reason, ...at);
    }
  }

  /** oneOf / anyOf groups and the discriminator. */
  private compareVariants(o: FlatSchema, n: FlatSchema, dir: Direction, emit: Emit, out: SchemaChange[]): void {
    // oneOf / anyOf, matched group by group.
    const groups = Math.min(o.variants.length, n.variants.length);
    for (let i = 0; i < groups; i++) {
      this.matchBranches(
        o.variants[i].branches.map((b) => [b]),
        n.variants[i].branches.map((b) => [b]),
        o,
        n,
        dir,
        out,
        n.variants[i].kind,
      );
    }
    if (o.discriminator && n.discriminator && o.discriminator.propertyName !== n.discriminator.propertyName) {
      emit('discriminator-changed', `discriminator ${o.discriminator.propertyName} → ${n.discriminator.propertyName}`, o.discriminator.at, n.discriminator.at);
    }
  }

  /** if / then / else. */
  private compareConditionals(o: FlatSchema, n: FlatSchema, dir: Direction, emit: Emit, out: SchemaChange[]): void {
    // if / then / else, by position. A new conditional narrows, a dropped one widens; when the
    // `if` itself changes, what its then/else say applies to other values: compared only under the same `if`.
    const conditionals = Math.max(o.conditionals.length, n.conditionals.length);
    for (let i = 0; i < conditionals; i++) {
      const before = o.conditionals[i];
      const after = n.conditionals[i];
      if (!before) emit('condition-added', 'a conditional (if/then/else) was added', o.anchor, after.if ?? after.at);
      else if (!after) emit('condition-removed', 'a conditional (if/then/else) was removed', before.if ?? before.at, n.anchor);
      else if (JSON.stringify(before.if?.node) !== JSON.stringify(after.if?.node)) emit('condition-changed', 'the if condition changed', before.if ?? before.at, after.if ?? after.at);
      else {
        for (const branch of ['then', 'else'] as const) {
          const oldLoc = before[branch];
          const newLoc = after[branch];
          if (oldLoc || newLoc) this.compareInto(oldLoc ? [oldLoc] : [], newLoc ? [newLoc] : [], dir, [`(${branch})`], out);
        }
      }
    }
  }

  /** dependentRequired, a request default, and the keywords compared only for equality. */
  private compareOtherKeywords(o: FlatSchema, n: FlatSchema, dir: Direction, emit: Emit): void {
    // dependentRequired.
    for (const key of new Set([...o.dependentRequired.keys(), ...n.dependentRequired.keys()])) {
      const before = o.dependentRequired.get(key);
      const after = n.dependentRequired.get(key);
      const added = [...(after?.deps ?? [])].filter((d) => !before?.deps.has(d));
      const removed = [...(before?.deps ?? [])].filter((d) => !after?.deps.has(d));
      if (added.length) emit('dependent-required-added', `sending ${key} now requires ${added.join(', ')}`, before?.at ?? o.anchor, after?.at);
      if (removed.length) emit('dependent-required-removed', `${key} no longer requires ${removed.join(', ')}`, before?.at, after?.at ?? n.anchor);
    }

    if (dir === 'request' && o.default && n.default && JSON.stringify(o.default.value) !== JSON.stringify(n.default.value)) {
      emit('default-changed', `default ${JSON.stringify(o.default.value)} → ${JSON.stringify(n.default.value)}`, o.default.at, n.default.at);
    }

    for (const keyword of new Set([...o.other.keys(), ...n.other.keys()])) {
      const before = o.other.get(keyword);
      const after = n.other.get(keyword);
      if (before?.value === after?.value) continue;
      emit('constraint-changed', `${keyword} ${!before ? 'added' : !after ? 'removed' : 'changed'}`, before?.at ?? o.anchor, after?.at ?? n.anchor);
    }
  }

  private compareObjects(o: FlatSchema, n: FlatSchema, dir: Direction, out: SchemaChange[], emit: Emit): void {
    // What a side of the exchange never sees: readOnly properties are not sent by clients, writeOnly ones not returned.
    const hidden = (set: DocumentSet, locs: Loc[] | undefined) => {
      if (!locs) return true;
      const flat = this.flatten(set, locs);
      return dir === 'request' ? flat.readOnly : flat.writeOnly;
    };
    for (const name of new Set([...o.properties.keys(), ...n.properties.keys()])) {
      const before = o.properties.get(name);
      const after = n.properties.get(name);
      if (before && after) {
        if (hidden(this.oldSet, before) && hidden(this.newSet, after)) continue;
        this.compareInto(before, after, dir, [name], out);
      } else if (before) {
        if (hidden(this.oldSet, before)) continue;
        if (dir === 'request') emit(n.closed ? 'property-removed-closed' : 'property-removed', `property ${name} removed`, before[0], n.anchor, [name]);
        else emit('property-removed', `property ${name} removed${o.required.has(name) ? ' (it was required)' : ''}`, before[0], n.anchor, [name]);
      } else if (after) {
        if (hidden(this.newSet, after)) continue;
        if (dir === 'request') {
          if (!n.required.has(name)) emit('property-added', `new optional property ${name}`, o.anchor, after[0], [name]);
        } else emit(o.closed ? 'property-added-closed' : 'property-added', `new property ${name}${o.closed ? ' in a schema that allowed no others' : ''}`, o.anchor, after[0], [name]);
      }
    }
    for (const name of n.required.keys()) {
      if (o.required.has(name)) continue;
      const declaredBefore = o.properties.has(name);
      if (dir === 'request') {
        if (hidden(this.newSet, n.properties.get(name)) && n.properties.has(name)) continue;
        emit('property-became-required', declaredBefore ? `property ${name} is now required` : `new required property ${name}`, o.properties.get(name)?.[0] ?? o.anchor, n.required.get(name), [name]);
      } else if (declaredBefore) {
        emit('property-became-required', `property ${name} is now always present`, o.properties.get(name)![0], n.required.get(name), [name]);
      }
    }
    for (const name of o.required.keys()) {
      if (n.required.has(name)) continue;
      // A property removed outright was reported above.
      if (o.properties.has(name) && !n.properties.has(name)) continue;
      if (dir === 'request' && hidden(this.oldSet, o.properties.get(name)) && o.properties.has(name)) continue;
      emit('property-became-optional', dir === 'request' ? `property ${name} is no longer required` : `property ${name} may now be missing`, o.required.get(name), n.properties.get(name)?.[0] ?? n.anchor, [name]);
    }
    if (!!o.closed !== !!n.closed) {
      emit(n.closed ? 'additional-properties-closed' : 'additional-properties-opened', n.closed ? 'other properties are no longer allowed' : 'other properties are now allowed', o.closed ?? o.anchor, n.closed ?? n.anchor);
    }
    if (!o.closed && !n.closed && (o.additional.length || n.additional.length)) {
      this.compareInto(o.additional, n.additional, dir, ['{*}'], out);
    }
  }

  private compareArrays(o: FlatSchema, n: FlatSchema, dir: Direction, out: SchemaChange[]): void {
    if (o.items.length || n.items.length) this.compareInto(o.items, n.items, dir, ['[]'], out);
    const tuple = Math.max(o.prefixItems.length, n.prefixItems.length);
    for (let i = 0; i < tuple; i++) this.compareInto(o.prefixItems[i] ?? [], n.prefixItems[i] ?? [], dir, [`[${i}]`], out);
  }

  /** A schema with a oneOf/anyOf as its alternatives, each with the schema's other keywords. */
  private expandVariants(flat: FlatSchema): Loc[][] {
    const base = flat.parts.map(({ loc, node }) => {
      const { oneOf: _o, anyOf: _a, allOf: _all, $ref: _r, discriminator: _d, ...rest } = node;
      return { doc: loc.doc, pointer: loc.pointer, node: rest, derived: `~base${this.derivedCount++}` };
    });
    return flat.variants[0].branches.map((branch) => [...base, branch]);
  }

  /** `type: [string, integer]` as alternatives `string` and `integer` (each with the schema's other keywords). */
  private splitByType(flat: FlatSchema, locs: Loc[]): Loc[][] {
    const types = flat.types?.set;
    const anchor = flat.anchor;
    if (!types || types.size < 2 || !anchor) return [locs];
    const split = [...types].filter((t) => !(t === 'integer' && types.has('number')));
    if (split.length < 2) return [locs];
    return split.map((type) => [...locs, { doc: anchor.doc, pointer: anchor.pointer, node: { type }, derived: `~type${this.derivedCount++}` }]);
  }

  /** A stable name of an alternative: its component, its discriminator value, or 'null'. */
  private branchKey(set: DocumentSet, locs: Loc[], discriminator: FlatSchema['discriminator']): string | undefined {
    const last = locs[locs.length - 1];
    if (isPureRef(last.node)) {
      const reference = (last.node as { $ref: string }).$ref;
      const mapped = discriminator && Object.entries(discriminator.mapping).find(([, target]) => target === reference);
      if (mapped) return `value ${mapped[0]}`;
      const target = deref(set, last);
      return target.pointer.split('/').pop();
    }
    const flat = this.flatten(set, locs);
    if (discriminator) {
      const property = flat.properties.get(discriminator.propertyName);
      const values = property && this.flatten(set, property).enum;
      if (values && values.values.size === 1) return `value ${[...values.values.keys()][0]}`;
    }
    if (flat.types && flat.types.set.size === 1 && flat.types.set.has('null')) return 'null';
    if (typeof (last.node as { title?: unknown })?.title === 'string') return (last.node as { title: string }).title;
    return undefined;
  }

  private matchBranches(oldBranches: Loc[][], newBranches: Loc[][], o: FlatSchema, n: FlatSchema, dir: Direction, out: SchemaChange[], kind: string): void {
    const oldKeys = oldBranches.map((b) => this.branchKey(this.oldSet, b, o.discriminator));
    const newKeys = newBranches.map((b) => this.branchKey(this.newSet, b, n.discriminator));
    const label = (key: string | undefined, index: number) => `${kind}[${key ?? index}]`;
    const pairs: [number, number][] = [];
    const freeOld = new Set(oldBranches.keys());
    const freeNew = new Set(newBranches.keys());
    // 1. The same component, discriminator value or title on both sides.
    for (const i of [...freeOld]) {
      if (oldKeys[i] === undefined) continue;
      const j = [...freeNew].find((k) => newKeys[k] === oldKeys[i]);
      if (j === undefined) continue;
      pairs.push([i, j]);
      freeOld.delete(i);
      freeNew.delete(j);
    }
    // 2. The rest: each old alternative with the new one it differs least from (same types).
    for (const i of [...freeOld]) {
      let best: { j: number; score: number } | undefined;
      const oldTypes = this.flatten(this.oldSet, oldBranches[i]).types?.set;
      for (const j of freeNew) {
        const newTypes = this.flatten(this.newSet, newBranches[j]).types?.set;
        if (oldTypes && newTypes && ![...oldTypes].some((t) => newTypes.has(t))) continue;
        const changes = this.compare(oldBranches[i], newBranches[j], dir);
        const score = changes.reduce((sum, c) => sum + (ruleById(c.rule).class === 'safe' ? 1 : 10), 0);
        if (!best || score < best.score) best = { j, score };
      }
      if (!best) continue;
      pairs.push([i, best.j]);
      freeOld.delete(i);
      freeNew.delete(best.j);
    }
    const single = oldBranches.length === 1 && newBranches.length === 1;
    for (const [i, j] of pairs) this.compareInto(oldBranches[i], newBranches[j], dir, single ? [] : [label(newKeys[j] ?? oldKeys[i], j)], out);
    const at = (branches: Loc[][], index: number) => branches[index][branches[index].length - 1];
    // An alternative left over is no change when another one takes all its values: anyOf [string, integer]
    // written as type [string, integer] removes nothing a client sends, nor adds anything it reads.
    const takes = (i: number, j: number) => this.compare(oldBranches[i], newBranches[j], dir).every((c) => ruleById(c.rule).class === 'safe');
    if (dir === 'request') for (const i of [...freeOld]) if (newBranches.some((_, j) => takes(i, j))) freeOld.delete(i);
    if (dir === 'response') for (const j of [...freeNew]) if (oldBranches.some((_, i) => takes(i, j))) freeNew.delete(j);
    for (const i of freeOld) this.emit(out, dir, 'variant-removed', `alternative ${oldKeys[i] ?? `#${i + 1}`} removed`, at(oldBranches, i), n.anchor, [label(oldKeys[i], i)]);
    for (const j of freeNew) this.emit(out, dir, 'variant-added', newKeys[j] === 'null' ? 'may now be null (new null alternative)' : `new alternative ${newKeys[j] ?? `#${j + 1}`}`, o.anchor, at(newBranches, j), [label(newKeys[j], j)]);
  }
}

/** A `$ref` with nothing but annotations beside it. */
function isPureRef(node: unknown): boolean {
  if (!isRef(node)) return false;
  return Object.keys(node).every((key) => key === '$ref' || key === 'description' || key === 'summary' || key === 'title' || key === 'examples' || key === 'example' || key === 'deprecated' || key.startsWith('x-'));
}

/**
 * A schema path as people read it: `receiver.postalCode`, `items[].id`, `{*}.name`.
 * @example showSchemaPath(['items', '[]', 'id']) // 'items[].id'
 */
export function showSchemaPath(path: string[]): string {
  return path.reduce((text, segment) => (text === '' ? segment : segment.startsWith('[') || segment === '{*}' ? `${text}${segment}` : `${text}.${segment}`), '');
}

/**
 * The `$ref` targets of the old version that the new version has alike (same document name and
 * pointer, same text) and that reach, through their own references, only targets alike too.
 */
function unchangedTargets(oldSet: DocumentSet, newSet: DocumentSet): Set<string> {
  const newIds = new Map([...newSet.documents.keys()].map((id) => [newSet.nameOf(id), id]));
  const targets = new Map<string, { loc: Loc; refs: string[]; same: boolean }>();
  const queue: Loc[] = [];
  const visit = (from: string, node: unknown) => {
    for (const reference of refsIn(node)) {
      let target: Loc;
      try {
        target = refTarget(oldSet, from, reference);
      } catch {
        continue; // a dangling reference is reported where the comparison meets it
      }
      const key = `${oldSet.nameOf(target.doc)}${target.pointer}`;
      if (targets.has(key)) continue;
      targets.set(key, { loc: target, refs: [], same: false });
      queue.push(target);
    }
  };
  for (const [id, document] of oldSet.documents) visit(id, document);
  while (queue.length) {
    const loc = queue.pop()!;
    const key = `${oldSet.nameOf(loc.doc)}${loc.pointer}`;
    const entry = targets.get(key)!;
    const newId = newIds.get(oldSet.nameOf(loc.doc));
    const counterpart = newId === undefined ? undefined : newSet.documents.get(newId);
    let same = false;
    if (counterpart !== undefined) {
      try {
        same = JSON.stringify(refTarget(newSet, newId!, `#${loc.pointer.slice(1)}`).node) === JSON.stringify(loc.node);
      } catch {
        same = false;
      }
    }
    entry.same = same;
    entry.refs = refsIn(loc.node).flatMap((reference) => {
      try {
        const target = refTarget(oldSet, loc.doc, reference);
        return [`${oldSet.nameOf(target.doc)}${target.pointer}`];
      } catch {
        return [];
      }
    });
  }
  // Changed: differs itself, or references something changed (fixpoint over the reference graph).
  const referrers = new Map<string, string[]>();
  for (const [key, entry] of targets) for (const ref of entry.refs) referrers.set(ref, [...(referrers.get(ref) ?? []), key]);
  const changed = new Set([...targets].filter(([, entry]) => !entry.same).map(([key]) => key));
  const pending = [...changed];
  while (pending.length) {
    for (const referrer of referrers.get(pending.pop()!) ?? []) {
      if (changed.has(referrer)) continue;
      changed.add(referrer);
      pending.push(referrer);
    }
  }
  return new Set([...targets.keys()].filter((key) => !changed.has(key)));
}
