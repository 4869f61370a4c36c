/**
 * A reader of protobuf's text format (what `config.pbtxt` is written in), without a schema: a
 * message is a list of fields in the order written, each a scalar or a message.
 *
 * The grammar read: `#` comments; fields `name: value`, `name { … }`, `name: { … }`, `name < … >`,
 * `name: [v, …]` (a list: each element is a field of that name); fields separated by whitespace,
 * `,` or `;`; strings in `"…"` or `'…'`, adjacent strings joined, with C escapes (`\n`, `\t`, `\"`,
 * `\\`, octal `\ooo`, hex `\xHH`, `\uHHHH`, `\UHHHHHHHH`); numbers in decimal, hex (`0x`) or octal
 * (`0…`), with a sign, a fraction, an exponent, an `f` suffix, `inf` and `nan`; identifiers (enum
 * values, `true`, `false`). Extension and `Any` field names (`[type.name]`) are read as names.
 *
 * @module
 */
import { TritonError } from "./errors.ts";

/** A scalar as written: a string literal, a number, or an identifier (an enum value, `true`). */
export type TextScalar =
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "number"; readonly value: number; readonly text: string }
  | { readonly kind: "identifier"; readonly value: string };

/** A field's value: a scalar or a message. */
export type TextValue = TextScalar | TextMessage;

/** A message: its fields, in the order written (a repeated field appears once per value). */
export interface TextMessage {
  readonly kind: "message";
  readonly fields: readonly TextField[];
}

/** One field of a message. */
export interface TextField {
  readonly name: string;
  readonly value: TextValue;
  /** Line (from 1) where the field's name is. */
  readonly line: number;
}

/**
 * Reads a message in protobuf's text format.
 * @param text the message (the contents of a `config.pbtxt`).
 * @param source what to call the text in errors (a file name).
 * @throws {TritonError} INVALID_ARG naming the line and column of the first thing that is not
 *   text format, or of a message nested deeper than 100.
 */
export function parseTextFormat(text: string, source = "text"): TextMessage {
  const reader = new Reader(text, source);
  const message = reader.fields(undefined);
  return message;
}

/** The deepest nesting of messages read: deeper text is refused rather than overflow the stack. */
const MAX_DEPTH = 100;

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER =
  /-?\s*(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fF]?|inf(?:inity)?|nan)(?![A-Za-z0-9_])/iy;

class Reader {
  #pos = 0;
  readonly #text: string;
  readonly #source: string;
  #depth = 0;

  constructor(text: string, source: string) {
    this.#text = text;
    this.#source = source;
  }

  /** Fields up to `close` (`}` or `>`), or to the end of the text when `close` is undefined. */
  fields(close: string | undefined): TextMessage {
    if (close !== undefined && ++this.#depth > MAX_DEPTH) {
      this.#fail(`messages nested deeper than ${MAX_DEPTH}`);
    }
    try {
      return this.#fieldsUntil(close);
    } finally {
      if (close !== undefined) this.#depth--;
    }
  }

  #fieldsUntil(close: string | undefined): TextMessage {
    const fields: TextField[] = [];
    for (;;) {
      this.#skip();
      if (this.#pos >= this.#text.length) {
        if (close !== undefined) this.#fail(`expected '${close}' before the end`);
        return { kind: "message", fields };
      }
      if (close !== undefined && this.#text[this.#pos] === close) {
        this.#pos++;
        return { kind: "message", fields };
      }
      const line = this.#line();
      const name = this.#fieldName();
      this.#skip();
      const colon = this.#eat(":");
      this.#skip();
      const c = this.#text[this.#pos];
      if (c === "[") {
        this.#pos++;
        this.#list(name, line, fields);
      } else if (c === "{" || c === "<") {
        this.#pos++;
        fields.push({ name, line, value: this.fields(c === "{" ? "}" : ">") });
      } else {
        if (!colon) this.#fail(`expected ':' after field '${name}'`);
        fields.push({ name, line, value: this.#scalar() });
      }
      this.#skip();
      if (!this.#eat(",")) this.#eat(";");
    }
  }

  /** The elements of `name: [ … ]` after the `[`, each as a field of that name. */
  #list(name: string, line: number, into: TextField[]): void {
    this.#skip();
    if (this.#eat("]")) return;
    for (;;) {
      this.#skip();
      const c = this.#text[this.#pos];
      if (c === "{" || c === "<") {
        this.#pos++;
        into.push({ name, line, value: this.fields(c === "{" ? "}" : ">") });
      } else {
        into.push({ name, line, value: this.#scalar() });
      }
      this.#skip();
      if (this.#eat("]")) return;
      if (!this.#eat(",")) this.#fail(`expected ',' or ']' in the list of '${name}'`);
    }
  }

  #fieldName(): string {
    if (this.#eat("[")) {
      const end = this.#text.indexOf("]", this.#pos);
      if (end < 0) this.#fail("expected ']' after an extension name");
      const name = this.#text.slice(this.#pos, end).trim();
      this.#pos = end + 1;
      return `[${name}]`;
    }
    IDENTIFIER.lastIndex = this.#pos;
    const m = IDENTIFIER.exec(this.#text);
    if (!m) this.#fail("expected a field name");
    this.#pos += m[0].length;
    return m[0];
  }

  #scalar(): TextScalar {
    const c = this.#text[this.#pos];
    if (c === '"' || c === "'") {
      let value = "";
      do {
        value += this.#string();
        this.#skip();
      } while (this.#text[this.#pos] === '"' || this.#text[this.#pos] === "'");
      return { kind: "string", value };
    }
    NUMBER.lastIndex = this.#pos;
    const n = NUMBER.exec(this.#text);
    if (n) {
      this.#pos += n[0].length;
      const text = n[0].replace(/\s+/g, "");
      return { kind: "number", value: numberOf(text), text };
    }
    IDENTIFIER.lastIndex = this.#pos;
    const id = IDENTIFIER.exec(this.#text);
    if (id) {
      this.#pos += id[0].length;
      return { kind: "identifier", value: id[0] };
    }
    return this.#fail(
      this.#pos >= this.#text.length ? "expected a value before the end" : "expected a value",
    );
  }

  /** One string literal, its quotes included in what is read. */
  #string(): string {
    const text = this.#text;
    const start = this.#pos;
    const quote = text[this.#pos++];
    const bytes: number[] = [];
    const encoder = new TextEncoder();
    for (;;) {
      if (this.#pos >= text.length || text[this.#pos] === "\n") {
        this.#pos = start;
        this.#fail("unterminated string");
      }
      const c = text[this.#pos];
      if (c === quote) {
        this.#pos++;
        break;
      }
      if (c !== "\\") {
        const cp = text.codePointAt(this.#pos)!;
        const s = String.fromCodePoint(cp);
        bytes.push(...encoder.encode(s));
        this.#pos += s.length;
        continue;
      }
      const e = text[this.#pos + 1];
      this.#pos += 2;
      const simple: Record<string, number> = {
        n: 10,
        t: 9,
        r: 13,
        a: 7,
        b: 8,
        f: 12,
        v: 11,
        "\\": 92,
        "'": 39,
        '"': 34,
        "?": 63,
      };
      if (e !== undefined && Object.hasOwn(simple, e)) {
        bytes.push(simple[e]);
      } else if (e !== undefined && /[0-7]/.test(e)) {
        const m = /^[0-7]{1,3}/.exec(text.slice(this.#pos - 1, this.#pos + 2))![0];
        this.#pos += m.length - 1;
        const v = parseInt(m, 8);
        if (v > 255) this.#fail(`octal escape \\${m} is over \\377`);
        bytes.push(v);
      } else if (e === "x" || e === "X") {
        const m = /^[0-9a-fA-F]{1,2}/.exec(text.slice(this.#pos, this.#pos + 2));
        if (!m) this.#fail("expected hex digits after \\x");
        this.#pos += m[0].length;
        bytes.push(parseInt(m[0], 16));
      } else if (e === "u" || e === "U") {
        const len = e === "u" ? 4 : 8;
        const m = new RegExp(`^[0-9a-fA-F]{${len}}`).exec(text.slice(this.#pos, this.#pos + len));
        if (!m) this.#fail(`expected ${len} hex digits after \\${e}`);
        this.#pos += len;
        const cp = parseInt(m[0], 16);
        if (cp > 0x10ffff) this.#fail(`\\${e}${m[0]} is no Unicode code point`);
        bytes.push(...encoder.encode(String.fromCodePoint(cp)));
      } else {
        this.#pos -= 2;
        this.#fail(`unknown escape \\${e ?? ""}`);
      }
    }
    return new TextDecoder().decode(new Uint8Array(bytes));
  }

  /** Skips whitespace and `#` comments. */
  #skip(): void {
    const text = this.#text;
    while (this.#pos < text.length) {
      const c = text[this.#pos];
      if (c === "#") {
        const end = text.indexOf("\n", this.#pos);
        this.#pos = end < 0 ? text.length : end + 1;
      } else if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\v") {
        this.#pos++;
      } else {
        return;
      }
    }
  }

  #eat(c: string): boolean {
    if (this.#text[this.#pos] !== c) return false;
    this.#pos++;
    return true;
  }

  #line(): number {
    let line = 1;
    for (let i = 0; i < this.#pos; i++) if (this.#text.charCodeAt(i) === 10) line++;
    return line;
  }

  #fail(what: string): never {
    const before = this.#text.slice(0, this.#pos);
    const line = before.split("\n").length;
    const column = this.#pos - before.lastIndexOf("\n");
    const near = this.#text.slice(this.#pos, this.#pos + 20).split("\n")[0];
    throw new TritonError(
      "INVALID_ARG",
      `${this.#source}:${line}:${column}: ${what}${near ? ` (at '${near}')` : ""}`,
    );
  }
}

/** The value of a number as text format writes it. */
function numberOf(text: string): number {
  const negative = text.startsWith("-");
  const body = (negative ? text.slice(1) : text).toLowerCase();
  let v: number;
  if (body.startsWith("inf")) v = Infinity;
  else if (body === "nan") v = NaN;
  else if (body.startsWith("0x")) v = parseInt(body.slice(2), 16);
  else if (/^0[0-7]+$/.test(body)) v = parseInt(body, 8);
  else v = Number(body.replace(/f$/, ""));
  return negative ? -v : v;
}
