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

/** The index just past the JSON value (object or array) that starts at `text[start]`, by its
 * brackets and strings; `undefined` while it is not closed yet. */
function bracketEnd(text: string, start: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
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
      ? bracketEnd(text, start)!
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
 * call goes out as text, tags and all. A call still open at the end is read as if closed. */
class HermesText implements ToolCallText {
  #held = "";
  #inCall = false;

  push(text: string): TextPiece[] {
    const out: TextPiece[] = [];
    let buffer = this.#held + text;
    while (true) {
      if (!this.#inCall) {
        const open = buffer.indexOf(HERMES_OPEN);
        if (open < 0) {
          const hold = partialTail(buffer, HERMES_OPEN);
          pushText(out, buffer.slice(0, buffer.length - hold));
          buffer = buffer.slice(buffer.length - hold);
          break;
        }
        pushText(out, buffer.slice(0, open));
        buffer = buffer.slice(open + HERMES_OPEN.length);
        this.#inCall = true;
      } else {
        const close = buffer.indexOf(HERMES_CLOSE);
        if (close < 0) break;
        this.#body(out, buffer.slice(0, close), HERMES_CLOSE);
        buffer = buffer.slice(close + HERMES_CLOSE.length);
        this.#inCall = false;
      }
    }
    this.#held = buffer;
    return out;
  }

  #body(out: TextPiece[], body: string, close: string): void {
    const call = functionCallOf(body);
    if (call !== undefined) out.push({ kind: "call", call });
    else pushText(out, HERMES_OPEN + body + close);
  }

  finish(): TextPiece[] {
    const out: TextPiece[] = [];
    if (this.#inCall) this.#body(out, this.#held, "");
    else pushText(out, this.#held);
    this.#held = "";
    this.#inCall = false;
    return out;
  }
}

const PYTHON_TAG = "<|python_tag|>";

/** Llama 3's JSON: a text that begins (after whitespace) with `<|python_tag|>` or `{` is a list
 * of calls, JSON objects separated by `;` or whitespace; any other text is text. Where a part of
 * the list is no call, it and the rest go out as text (the whole text, tag included, when it is
 * the first). */
class Llama3Text implements ToolCallText {
  #state: "start" | "text" | "calls" = "start";
  #held = "";
  /** What came before the first object (whitespace, the tag), kept until a call is read. */
  #prefix = "";
  #calls = 0;

  push(text: string): TextPiece[] {
    const out: TextPiece[] = [];
    this.#held += text;
    if (this.#state === "start") {
      const rest = this.#held.trimStart();
      if (rest === "" || (rest.length < PYTHON_TAG.length && PYTHON_TAG.startsWith(rest))) {
        return out;
      }
      if (rest.startsWith(PYTHON_TAG) || rest.startsWith("{")) {
        const body = rest.startsWith(PYTHON_TAG) ? rest.slice(PYTHON_TAG.length) : rest;
        this.#prefix = this.#held.slice(0, this.#held.length - body.length);
        this.#held = body;
        this.#state = "calls";
      } else this.#state = "text";
    }
    if (this.#state === "text") {
      pushText(out, this.#held);
      this.#held = "";
      return out;
    }
    while (true) {
      let i = 0;
      while (i < this.#held.length && (WHITESPACE.has(this.#held[i]) || this.#held[i] === ";")) {
        i++;
      }
      if (i === this.#held.length) break;
      if (this.#held[i] !== "{") {
        this.#toText(out);
        break;
      }
      const end = bracketEnd(this.#held, i);
      if (end === undefined) break;
      const call = functionCallOf(this.#held.slice(i, end));
      if (call === undefined) {
        this.#toText(out);
        break;
      }
      out.push({ kind: "call", call });
      this.#calls++;
      this.#held = this.#held.slice(end);
    }
    return out;
  }

  /** The rest is text: the held text (after the prefix, where no call was read). */
  #toText(out: TextPiece[]): void {
    pushText(out, (this.#calls === 0 ? this.#prefix : "") + this.#held);
    this.#held = "";
    this.#state = "text";
  }

  finish(): TextPiece[] {
    const out: TextPiece[] = [];
    if (this.#state === "calls") {
      if (this.#held.trim() !== "") this.#toText(out);
    } else pushText(out, this.#held);
    this.#held = "";
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
