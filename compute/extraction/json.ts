// JSON syntax checking that reports where the JSON breaks without quoting it (JSON.parse messages quote the input).

export const JSON_NESTING_MAX = 2000;

/** null when `text` is valid JSON; otherwise a reason naming line and column only. */
export function jsonSyntaxError(text: string): string | null {
  try {
    JSON.parse(text);
    return null;
  } catch {
    const offset = firstErrorOffset(text);
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

// Over 70 lines, listed in test/unit/architecture.test.ts: a recursive-descent JSON scanner: its readers share one cursor in one closure.
function firstErrorOffset(text: string): number {
  let index = 0;
  const fail = (): never => {
    throw new Stop(index);
  };
  const space = () => {
    while (index < text.length && (text[index] === ' ' || text[index] === '\t' || text[index] === '\n' || text[index] === '\r')) index++;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, index)) index += word.length;
    else fail();
  };
  const readString = () => {
    index++; // opening quote
    while (index < text.length) {
      const char = text[index]!;
      if (char === '"') {
        index++;
        return;
      }
      if (char < ' ') fail();
      if (char === '\\') {
        index++;
        const escaped = text[index];
        if (escaped === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(index + 1, index + 5))) fail();
          index += 5;
        } else if (escaped !== undefined && '"\\/bfnrt'.includes(escaped)) index++;
        else fail();
      } else index++;
    }
    fail();
  };
  const number = () => {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(index, index + 400));
    if (!match) fail();
    index += match![0].length;
  };
  const value = (depth: number): void => {
    if (depth > JSON_NESTING_MAX) fail();
    space();
    const char = text[index];
    if (char === '{') {
      index++;
      space();
      if (text[index] === '}') {
        index++;
        return;
      }
      for (;;) {
        space();
        if (text[index] !== '"') fail();
        readString();
        space();
        if (text[index] !== ':') fail();
        index++;
        value(depth + 1);
        space();
        if (text[index] === ',') index++;
        else if (text[index] === '}') {
          index++;
          return;
        } else fail();
      }
    }
    if (char === '[') {
      index++;
      space();
      if (text[index] === ']') {
        index++;
        return;
      }
      for (;;) {
        value(depth + 1);
        space();
        if (text[index] === ',') index++;
        else if (text[index] === ']') {
          index++;
          return;
        } else fail();
      }
    }
    if (char === '"') readString();
    else if (char === 't') literal('true');
    else if (char === 'f') literal('false');
    else if (char === 'n') literal('null');
    else if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) number();
    else fail();
  };
  try {
    value(0);
    space();
    if (index < text.length) fail();
    return text.length; // JSON.parse disagreed but the scanner found nothing: point at the end
  } catch (error) {
    if (error instanceof Stop) return error.offset;
    return index; // stack exhausted on deep nesting
  }
}
