/**
 * The shortest and longest string an anchored pattern matches, when it has bounds: `^[A-Z]{2}$`
 * → [2, 2], `^\+?[0-9]{6,20}$` → [6, 21], `^a+$` → [1, Infinity]. Undefined when the pattern is
 * not anchored at both ends or uses something this reader does not follow (backreferences).
 * The diff uses it to see that `maxLength: 2` added beside `pattern: ^[A-Z]{2}$` refuses nothing
 * the pattern accepted (a false positive otherwise).
 *
 * @example patternLength('^[A-Z]{2}$') // { min: 2, max: 2 }
 */
export function patternLength(pattern: string): { min: number; max: number } | undefined {
  if (!pattern.startsWith('^') || !pattern.endsWith('$') || pattern.endsWith('\\$')) return undefined;
  const reader = new Reader(pattern.slice(1, -1));
  try {
    const result = reader.alternation();
    return reader.done() ? result : undefined;
  } catch {
    return undefined;
  }
}

interface Range {
  min: number;
  max: number;
}

class Reader {
  private at = 0;
  constructor(private readonly source: string) {}

  done(): boolean {
    return this.at === this.source.length;
  }

  alternation(): Range {
    let result = this.sequence();
    while (this.source[this.at] === '|') {
      this.at++;
      const next = this.sequence();
      result = { min: Math.min(result.min, next.min), max: Math.max(result.max, next.max) };
    }
    return result;
  }

  private sequence(): Range {
    const total = { min: 0, max: 0 };
    while (this.at < this.source.length && this.source[this.at] !== '|' && this.source[this.at] !== ')') {
      const atom = this.atom();
      const { min, max } = this.quantifier();
      total.min += atom.min * min;
      total.max += atom.max === 0 ? 0 : atom.max * max;
    }
    return total;
  }

  private atom(): Range {
    const char = this.source[this.at++];
    if (char === '\\') {
      const next = this.source[this.at++];
      if (next === undefined) throw new Error('dangling escape');
      if (/[1-9k]/.test(next)) throw new Error('backreference');
      if (next === 'b' || next === 'B') return { min: 0, max: 0 };
      if (next === 'u' && this.source[this.at] === '{') this.at = this.source.indexOf('}', this.at) + 1;
      else if (next === 'u') this.at += 4;
      else if (next === 'x') this.at += 2;
      else if ((next === 'p' || next === 'P') && this.source[this.at] === '{') this.at = this.source.indexOf('}', this.at) + 1;
      return { min: 1, max: 1 };
    }
    if (char === '[') {
      while (this.at < this.source.length && this.source[this.at] !== ']') this.at += this.source[this.at] === '\\' ? 2 : 1;
      if (this.source[this.at] !== ']') throw new Error('unclosed class');
      this.at++;
      return { min: 1, max: 1 };
    }
    if (char === '(') {
      let lookaround = false;
      if (this.source[this.at] === '?') {
        const kind = this.source.slice(this.at, this.at + 3);
        if (kind.startsWith('?:')) this.at += 2;
        else if (kind === '?<=' || kind === '?<!' || kind.startsWith('?=') || kind.startsWith('?!')) {
          lookaround = true;
          this.at += kind.startsWith('?<') ? 3 : 2;
        } else if (kind.startsWith('?<')) this.at = this.source.indexOf('>', this.at) + 1;
        else throw new Error('unknown group');
      }
      const inner = this.alternation();
      if (this.source[this.at++] !== ')') throw new Error('unclosed group');
      return lookaround ? { min: 0, max: 0 } : inner;
    }
    if (char === '^' || char === '$') return { min: 0, max: 0 };
    if (char === '*' || char === '+' || char === '?' || char === '{') throw new Error('quantifier without atom');
    return { min: 1, max: 1 };
  }

  private quantifier(): Range {
    const char = this.source[this.at];
    let range: Range = { min: 1, max: 1 };
    if (char === '*') range = { min: 0, max: Infinity };
    else if (char === '+') range = { min: 1, max: Infinity };
    else if (char === '?') range = { min: 0, max: 1 };
    else if (char === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
      if (!match) return range; // a literal brace
      this.at += match[0].length - 1;
      range = { min: Number(match[1]), max: match[2] ? (match[3] ? Number(match[3]) : Infinity) : Number(match[1]) };
    } else return range;
    this.at++;
    if (this.source[this.at] === '?') this.at++; // lazy
    return range;
  }
}
