// JSON syntax checking that reports where the JSON breaks without quoting it (JSON.parse messages quote the input).

export const JSON_NESTING_MAX = 2000;

/** null when `text` is valid JSON; otherwise a reason naming line and column only. */
export function jsonSyntaxError(text: string): string | null {
  try {
    JSON.parse(text);
    return null;
  } catch {
    const offset = new Scanner(text).firstError();
    const before = text.slice(0, offset);
    const line = before.split('\n').length;
    const column = offset - before.lastIndexOf('\n');
    return offset >= text.length
      ? `the JSON is not valid: it ends early (line ${line})`
      : `the JSON is not valid: syntax error at line ${line}, column ${column}`;
  }
}

class Stop {
  readonly offset: number;
  constructor(offset: number) {
    this.offset = offset;
  }
}

/** A recursive-descent scanner over one text: every reader moves the one cursor and throws Stop where the JSON breaks. */
class Scanner {
  private readonly text: string;
  private index = 0;
  constructor(text: string) {
    this.text = text;
  }

  /** The offset of the first syntax error, or the text's length when the scanner finds none. */
  firstError(): number {
    try {
      this.value(0);
      this.space();
      if (this.index < this.text.length) this.fail();
      return this.text.length; // JSON.parse disagreed but the scanner found nothing: point at the end
    } catch (error) {
      if (error instanceof Stop) return error.offset;
      return this.index; // stack exhausted on deep nesting
    }
  }

  private fail(): never {
    throw new Stop(this.index);
  }

  private space(): void {
    const text = this.text;
    while (this.index < text.length && (text[this.index] === ' ' || text[this.index] === '\t' || text[this.index] === '\n' || text[this.index] === '\r'))
      this.index++;
  }

  /** Steps over `char` when it is next (after white space). */
  private take(char: string): boolean {
    if (this.text[this.index] !== char) return false;
    this.index++;
    return true;
  }

  private value(depth: number): void {
    if (depth > JSON_NESTING_MAX) this.fail();
    this.space();
    const char = this.text[this.index];
    if (char === '{') this.object(depth);
    else if (char === '[') this.array(depth);
    else if (char === '"') this.string();
    else if (char === 't') this.literal('true');
    else if (char === 'f') this.literal('false');
    else if (char === 'n') this.literal('null');
    else if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) this.number();
    else this.fail();
  }

  private object(depth: number): void {
    this.index++;
    this.space();
    if (this.take('}')) return;
    for (;;) {
      this.space();
      if (this.text[this.index] !== '"') this.fail();
      this.string();
      this.space();
      if (!this.take(':')) this.fail();
      this.value(depth + 1);
      this.space();
      if (this.take('}')) return;
      if (!this.take(',')) this.fail();
    }
  }

  private array(depth: number): void {
    this.index++;
    this.space();
    if (this.take(']')) return;
    for (;;) {
      this.value(depth + 1);
      this.space();
      if (this.take(']')) return;
      if (!this.take(',')) this.fail();
    }
  }

  private string(): void {
    const text = this.text;
    this.index++; // opening quote
    while (this.index < text.length) {
      const char = text[this.index]!;
      if (char === '"') {
        this.index++;
        return;
      }
      if (char < ' ') this.fail();
      if (char === '\\') {
        this.index++;
        const escaped = text[this.index];
        if (escaped === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(this.index + 1, this.index + 5))) this.fail();
          this.index += 5;
        } else if (escaped !== undefined && '"\\/bfnrt'.includes(escaped)) this.index++;
        else this.fail();
      } else this.index++;
    }
    this.fail();
  }

  private literal(word: string): void {
    if (this.text.startsWith(word, this.index)) this.index += word.length;
    else this.fail();
  }

  private number(): void {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.index, this.index + 400));
    if (!match) this.fail();
    this.index += match[0].length;
  }
}
