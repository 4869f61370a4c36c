/**
 * Tool calls in a chat model's generated text, in the formats models are trained to write them:
 * Llama 3's JSON (`{"name": …, "parameters": {…}}`, objects separated by `;`, where the text
 * begins with one, after an optional `<|python_tag|>`) and Hermes' tags
 * (`<tool_call>{"name": …, "arguments": {…}}</tool_call>`, anywhere in the text). The text is
 * read as it streams: text that is no tool call passes on as it comes, except a tail that may
 * begin one, held until the next piece says; each call goes out once it is complete.
 *
 * @module
 */

/** The formats of {@link ToolCallText}: `"llama3_json"` (also named `"llama3"`) and `"hermes"`. */
export type ToolCallFormat = "llama3_json" | "llama3" | "hermes";

/** The names {@link ToolCallFormat} takes. */
export const TOOL_CALL_FORMATS: readonly ToolCallFormat[] = ["llama3_json", "llama3", "hermes"];

/** A tool call read from the text: the function's name, its arguments as JSON text (OpenAI's
 * `function.arguments`), byte for byte as the model wrote them. */
export interface FunctionCall {
  readonly name: string;
  readonly arguments: string;
}

/** What a piece of text turned into: text to pass on, or a complete call. */
export type TextPiece =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "call"; readonly call: FunctionCall };

const WHITESPACE: ReadonlySet<string> = new Set([" ", "\t", "\n", "\r"]);

/** Where a JSON value in brackets (object or array) ends, by its brackets and strings, read
 * piece by piece as its text comes: each character is read once. */
class BracketEnd {
  #depth = 0;
  #inString = false;
  #escaped = false;

  /** Reads the next piece of the value's text (the first starts with its opening bracket).
   * @returns the index in `piece` just past the value, `undefined` while it is not closed. */
  feed(piece: string): number | undefined {
    for (let i = 0; i < piece.length; i++) {
      const c = piece[i];
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (c === "\\") this.#escaped = true;
        else if (c === '"') this.#inString = false;
      } else if (c === '"') this.#inString = true;
      else if (c === "{" || c === "[") this.#depth++;
      else if ((c === "}" || c === "]") && --this.#depth === 0) return i + 1;
    }
    return undefined;
  }
}

/** The index just past the JSON string whose quote is at `text[start]`. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i + 1;
  }
  return text.length;
}

/** The index just past a scalar value (number, true, false, null) that starts at `start`. */
function scalarEnd(text: string, start: number): number {
  let i = start;
  while (i < text.length && !",}] \t\n\r".includes(text[i])) i++;
  return i;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && WHITESPACE.has(text[i])) i++;
  return i;
}

/** The members of the JSON object `text` (valid JSON, checked by the caller), each as the raw
 * text of its value; a later duplicate key wins, as `JSON.parse` has it. */
function rawMembers(text: string): Map<string, string> {
  const members = new Map<string, string>();
  let i = skipSpace(text, 0) + 1;
  while (true) {
    i = skipSpace(text, i);
    if (text[i] !== '"') break;
    const keyEnd = stringEnd(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = skipSpace(text, keyEnd) + 1; // past ':'
    const start = skipSpace(text, i);
    const c = text[start];
    const end = c === "{" || c === "["
      ? start + new BracketEnd().feed(text.slice(start))!
      : c === '"'
      ? stringEnd(text, start)
      : scalarEnd(text, start);
    members.set(key, text.slice(start, end));
    i = skipSpace(text, end);
    if (text[i] === ",") i++;
  }
  return members;
}

/**
 * The call that the JSON text `text` describes: an object with a string `name` and the arguments
 * under `argumentsKey` (or under the other of `arguments`, `parameters`) as an object, or as a
 * string of JSON; no arguments read as `{}`. `undefined` for anything else.
 */
export function functionCallOf(text: string): FunctionCall | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.name !== "string" || record.name === "") return undefined;
  const key = Object.hasOwn(record, "arguments")
    ? "arguments"
    : Object.hasOwn(record, "parameters")
    ? "parameters"
    : undefined;
  if (key === undefined) return { name: record.name, arguments: "{}" };
  const args = record[key];
  if (typeof args === "string") return { name: record.name, arguments: args };
  if (typeof args !== "object" || args === null || Array.isArray(args)) return undefined;
  return { name: record.name, arguments: rawMembers(text).get(key)! };
}

/** The length of the longest tail of `text` that begins `marker` (without being all of it). */
function partialTail(text: string, marker: string): number {
  for (let k = Math.min(marker.length - 1, text.length); k > 0; k--) {
    if (text.endsWith(marker.slice(0, k))) return k;
  }
  return 0;
}

/** Reads one choice's text in one format, piece by piece. */
export interface ToolCallText {
  /** The next piece of text: what can go out now. */
  push(text: string): TextPiece[];
  /** The end of the text: what was held (an unfinished call goes out as text). */
  finish(): TextPiece[];
}

const HERMES_OPEN = "<tool_call>";
const HERMES_CLOSE = "</tool_call>";

/** Hermes' tags: each `<tool_call>…</tool_call>` whose body is a call is one; a body that is no
 * call goes out as text, tags and all. A call still open at the end is read as if closed. A call's
 * body is kept in pieces and joined once, when it closes. */
class HermesText implements ToolCallText {
  /** Outside a call: a tail that may begin the opening tag. */
  #held = "";
  #inCall = false;
  /** Inside a call: its body so far, in pieces, and the body's last characters, where the
   * closing tag may have begun. */
  #body: string[] = [];
  #tail = "";

  push(text: string): TextPiece[] {
    const out: TextPiece[] = [];
    let rest = text;
    while (true) {
      if (!this.#inCall) {
        const buffer = this.#held + rest;
        const open = buffer.indexOf(HERMES_OPEN);
        if (open < 0) {
          const hold = partialTail(buffer, HERMES_OPEN);
          pushText(out, buffer.slice(0, buffer.length - hold));
          this.#held = buffer.slice(buffer.length - hold);
          return out;
        }
        pushText(out, buffer.slice(0, open));
        this.#held = "";
        rest = buffer.slice(open + HERMES_OPEN.length);
        this.#inCall = true;
        this.#body = [];
        this.#tail = "";
      } else {
        const window = this.#tail + rest;
        const close = window.indexOf(HERMES_CLOSE);
        if (close < 0) {
          this.#body.push(rest);
          this.#tail = window.slice(-(HERMES_CLOSE.length - 1));
          return out;
        }
        // The tail is the end of the body so far: counted once.
        const before = this.#body.join("");
        this.#call(
          out,
          before.slice(0, before.length - this.#tail.length) + window.slice(0, close),
        );
        rest = window.slice(close + HERMES_CLOSE.length);
        this.#inCall = false;
      }
    }
  }

  #call(out: TextPiece[], body: string, close = HERMES_CLOSE): void {
    const call = functionCallOf(body);
    if (call !== undefined) out.push({ kind: "call", call });
    else pushText(out, HERMES_OPEN + body + close);
  }

  finish(): TextPiece[] {
    const out: TextPiece[] = [];
    if (this.#inCall) this.#call(out, this.#body.join(""), "");
    else pushText(out, this.#held);
    this.#held = "";
    this.#inCall = false;
    this.#body = [];
    this.#tail = "";
    return out;
  }
}

const PYTHON_TAG = "<|python_tag|>";

/** Llama 3's JSON: a text that begins (after whitespace) with `<|python_tag|>` or `{` is a list of
 * calls, JSON objects separated by `;` or whitespace; any other text is text. Where a part of the
 * list is no call, it and the rest go out as text (the whole text, tag included, when it is the
 * first). An object's text is kept in pieces and joined once, when it closes. */
class Llama3Text implements ToolCallText {
  #state: "start" | "text" | "calls" = "start";
  /** At the start: the text until it says whether it is calls (whitespace, part of the tag). */
  #start = "";
  /** What came before the first object (whitespace, the tag), kept until a call is read. */
  #prefix = "";
  /** The separators after the last call (or the prefix), until the next object begins. */
  #separators = "";
  #calls = 0;
  /** The object being read: where it ends, and its text so far. */
  #object: BracketEnd | undefined;
  #objectText: string[] = [];

  push(text: string): TextPiece[] {
    const out: TextPiece[] = [];
    let rest = text;
    if (this.#state === "start") {
      const held = this.#start + text;
      const body = held.trimStart();
      if (body === "" || (body.length < PYTHON_TAG.length && PYTHON_TAG.startsWith(body))) {
        this.#start = held;
        return out;
      }
      this.#start = "";
      if (body.startsWith(PYTHON_TAG) || body.startsWith("{")) {
        rest = body.startsWith(PYTHON_TAG) ? body.slice(PYTHON_TAG.length) : body;
        this.#prefix = held.slice(0, held.length - rest.length);
        this.#state = "calls";
      } else {
        this.#state = "text";
        rest = held;
      }
    }
    if (this.#state === "text") {
      pushText(out, rest);
      return out;
    }
    while (rest !== "") {
      if (this.#object === undefined) {
        let i = 0;
        while (i < rest.length && (WHITESPACE.has(rest[i]) || rest[i] === ";")) i++;
        this.#separators += rest.slice(0, i);
        rest = rest.slice(i);
        if (rest === "") break;
        if (rest[0] !== "{") {
          this.#toText(out, rest);
          break;
        }
        this.#object = new BracketEnd();
        this.#objectText = [];
      }
      const end = this.#object.feed(rest);
      if (end === undefined) {
        this.#objectText.push(rest);
        break;
      }
      const object = this.#objectText.join("") + rest.slice(0, end);
      rest = rest.slice(end);
      this.#object = undefined;
      this.#objectText = [];
      const call = functionCallOf(object);
      if (call === undefined) {
        this.#toText(out, object + rest);
        break;
      }
      out.push({ kind: "call", call });
      this.#calls++;
      this.#separators = "";
    }
    return out;
  }

  /** The rest is text: `text` after the separators (and the prefix, where no call was read). */
  #toText(out: TextPiece[], text: string): void {
    pushText(out, (this.#calls === 0 ? this.#prefix : "") + this.#separators + text);
    this.#separators = "";
    this.#state = "text";
  }

  finish(): TextPiece[] {
    const out: TextPiece[] = [];
    if (this.#state === "start") pushText(out, this.#start);
    else if (this.#state === "calls") {
      const open = this.#objectText.join("");
      if (this.#object !== undefined || this.#separators.trim() !== "") this.#toText(out, open);
    }
    this.#start = "";
    this.#object = undefined;
    this.#objectText = [];
    return out;
  }
}

function pushText(out: TextPiece[], text: string): void {
  if (text !== "") out.push({ kind: "text", text });
}

/** A reader of one choice's text in `format`. */
export function toolCallText(format: ToolCallFormat): ToolCallText {
  return format === "hermes" ? new HermesText() : new Llama3Text();
}
