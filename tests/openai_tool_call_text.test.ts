/**
 * Tool calls read out of generated text (src/openai/tool_call_text.ts), alone: Llama 3's JSON
 * and Hermes' tags, whole and piece by piece. Whatever way a text is split into pieces, the same
 * calls and the same text come out (property test), so a streamed answer says what the whole
 * one does; a call's arguments are the model's JSON text byte for byte.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { test } from "./support/test.ts";
import {
  functionCallOf,
  type TextPiece,
  type ToolCallFormat,
  toolCallText,
} from "../serving/openai/tool_call_text.ts";

/** The pieces of `text` read whole, with adjacent text pieces joined. */
function read(format: ToolCallFormat, pieces: readonly string[]): TextPiece[] {
  const reader = toolCallText(format);
  const out: TextPiece[] = [];
  for (const piece of pieces) out.push(...reader.push(piece));
  out.push(...reader.finish());
  const joined: TextPiece[] = [];
  for (const p of out) {
    const last = joined.at(-1);
    if (p.kind === "text" && last?.kind === "text") {
      joined[joined.length - 1] = { kind: "text", text: last.text + p.text };
    } else joined.push(p);
  }
  return joined;
}

const call = (name: string, args: string): TextPiece => ({
  kind: "call",
  call: { name, arguments: args },
});
const text = (t: string): TextPiece => ({ kind: "text", text: t });

test("functionCallOf: name and arguments (or parameters) as the model wrote them", () => {
  assert.deepEqual(
    functionCallOf('{"name": "f", "arguments": {"a": 1.50, "b": [1, {"c": "}"}]}}'),
    {
      name: "f",
      arguments: '{"a": 1.50, "b": [1, {"c": "}"}]}',
    },
  );
  assert.deepEqual(functionCallOf('{"parameters":{"n":12345678901234567890},"name":"g"}'), {
    name: "g",
    arguments: '{"n":12345678901234567890}',
  });
  // Arguments given as JSON text stay that text; none read as {}.
  assert.deepEqual(functionCallOf('{"name": "f", "arguments": "{\\"a\\": 1}"}'), {
    name: "f",
    arguments: '{"a": 1}',
  });
  assert.deepEqual(functionCallOf('{"name": "f"}'), { name: "f", arguments: "{}" });
  for (
    const bad of [
      "[1]",
      '{"name": 1}',
      '{"name": ""}',
      '{"name": "f", "arguments": 3}',
      '{"name": "f", "arguments": [1]}',
      '{"name": "f"',
      "no json",
    ]
  ) {
    assert.equal(functionCallOf(bad), undefined, bad);
  }
});

test("hermes: calls anywhere in the text, the text around them kept", () => {
  const t = 'Let me look.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}' +
    '</tool_call>\n<tool_call>{"name": "get_time", "arguments": {}}</tool_call>';
  assert.deepEqual(read("hermes", [t]), [
    text("Let me look.\n"),
    call("get_weather", '{"city": "Paris"}'),
    text("\n"),
    call("get_time", "{}"),
  ]);
  // A body that is no call stays text, tags and all; an unclosed call at the end is read.
  assert.deepEqual(read("hermes", ["a<tool_call>{oops}</tool_call>b"]), [
    text("a<tool_call>{oops}</tool_call>b"),
  ]);
  assert.deepEqual(read("hermes", ['<tool_call>{"name": "f", "arguments": {"x": 1}}']), [
    call("f", '{"x": 1}'),
  ]);
  assert.deepEqual(read("hermes", ["<tool_call>{unfinished"]), [text("<tool_call>{unfinished")]);
  assert.deepEqual(read("hermes", ["a <tool_"]), [text("a <tool_")]);
  assert.deepEqual(read("hermes", ["plain text, no calls"]), [text("plain text, no calls")]);
});

test("llama3: a text that begins with a call (tag optional) is a list of calls", () => {
  assert.deepEqual(
    read("llama3_json", [
      '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}; ' +
      '{"name": "get_time", "parameters": {"zone": "CET"}}',
    ]),
    [call("get_weather", '{"city": "Paris"}'), call("get_time", '{"zone": "CET"}')],
  );
  assert.deepEqual(read("llama3", ['\n {"name": "f", "parameters": {}}']), [call("f", "{}")]);
  // Text that does not begin with a call is text, even with JSON later on.
  assert.deepEqual(read("llama3_json", ['Sure: {"name": "f", "parameters": {}}']), [
    text('Sure: {"name": "f", "parameters": {}}'),
  ]);
  // JSON that is no call: the whole text as it came, tag included.
  assert.deepEqual(read("llama3_json", ['<|python_tag|>{"answer": 42}']), [
    text('<|python_tag|>{"answer": 42}'),
  ]);
  // After a call, what is no call is text; an unfinished object at the end is text.
  assert.deepEqual(read("llama3_json", ['{"name": "f", "parameters": {}} and then']), [
    call("f", "{}"),
    text(" and then"),
  ]);
  assert.deepEqual(read("llama3_json", ['{"name": "f", "par']), [text('{"name": "f", "par')]);
  assert.deepEqual(read("llama3_json", ["<|pyth"]), [text("<|pyth")]);
  assert.deepEqual(read("llama3_json", ["  "]), [text("  ")]);
});

test("split anywhere, a text reads the same as whole (property)", () => {
  const texts = [
    'Let me look.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Pa}ris\\""}}' +
    "</tool_call>\n<tool_call>{bad}</tool_call> tail <tool_",
    '<|python_tag|>{"name": "a", "parameters": {"s": "x;{y"}}; {"name": "b", "parameters": {}}',
    '  {"name": "a", "arguments": {"k": [1, 2]}} trailing',
    "Grüße 🌍 <tool_call>",
  ];
  for (const format of ["hermes", "llama3_json"] as const) {
    for (const t of texts) {
      const whole = read(format, [t]);
      fc.assert(
        fc.property(fc.uniqueArray(fc.nat(t.length), { maxLength: 12 }), (cuts) => {
          const at = [0, ...cuts.sort((a, b) => a - b), t.length];
          const pieces = at.slice(1).map((end, i) => t.slice(at[i], end));
          assert.deepEqual(read(format, pieces), whole);
        }),
        { numRuns: 200 },
      );
    }
  }
});

test("a large call in small pieces: its arguments whole, byte for byte", () => {
  const args = JSON.stringify({ code: "x = 1;\n".repeat(30_000), nested: [1, { a: "}]" }] });
  for (
    const [format, text] of [
      ["hermes", `<tool_call>{"name": "write", "arguments": ${args}}</tool_call>`],
      ["llama3_json", `{"name": "write", "parameters": ${args}}`],
    ] as const
  ) {
    const pieces = [];
    for (let i = 0; i < text.length; i += 4) pieces.push(text.slice(i, i + 4));
    assert.deepEqual(read(format, pieces), [call("write", args)]);
  }
});
