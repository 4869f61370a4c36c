/**
 * The OpenAI front end's per-token work, property-tested (fast-check) against the plain
 * definitions it stands in for: a choice's text decoded by `Utf8Pieces` equals one streaming
 * `TextDecoder` over the same elements (split characters, byte order marks, malformed bytes),
 * and a streamed chunk written by `chunk()` is byte for byte `JSON.stringify` of its object.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { test } from "./support/test.ts";
import { endsOnBoundary, Utf8Pieces } from "../serving/openai/utf8_pieces.ts";
import { callIdentity, chunk } from "../serving/openai/responses.ts";

const encoder = new TextEncoder();

/** Bytes as models send them: UTF-8 text, maybe after a byte order mark, maybe with stray or
 * malformed bytes, cut anywhere into elements (empty ones too). */
const elements = fc.tuple(
  fc.boolean(),
  fc.array(
    fc.oneof(
      fc.string({ unit: "binary", maxLength: 8 }).map((s) => encoder.encode(s)),
      fc.uint8Array({ maxLength: 6 }),
      fc.constantFrom(
        new Uint8Array([0xef, 0xbb, 0xbf]),
        new Uint8Array([0xf0, 0x9f]),
        new Uint8Array([0x98, 0x80]),
        new Uint8Array([0xed, 0xa0, 0x80]),
        new Uint8Array([0xe0, 0x80, 0x80]),
        new Uint8Array([0xc0, 0xaf]),
      ),
    ),
    { maxLength: 12 },
  ),
  fc.array(fc.nat({ max: 40 }), { maxLength: 8 }),
).map(([bom, parts, cuts]) => {
  const all = [...(bom ? [new Uint8Array([0xef, 0xbb, 0xbf])] : []), ...parts];
  const bytes = new Uint8Array(all.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of all) {
    bytes.set(p, at);
    at += p.length;
  }
  const points = [...new Set(cuts.map((c) => Math.min(c, bytes.length)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    out.push(bytes.slice(from, p));
    from = p;
  }
  return out;
});

/**
 * The elements' texts as the Encoding standard's streaming UTF-8 decoder gives them: a byte order
 * mark dropped at the very start only. Written with a decoder that keeps every one, as Deno's
 * streaming decoder (2.9) also drops one that begins a later call.
 */
function referenceDecode(parts: readonly Uint8Array[]): string[] {
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const texts = [...parts.map((p) => decoder.decode(p, { stream: true })), decoder.decode()];
  const first = texts.findIndex((t) => t !== "");
  if (first >= 0 && texts[first].charCodeAt(0) === 0xfeff) texts[first] = texts[first].slice(1);
  return texts;
}

test("a byte order mark past the start is text, kept (Deno's streaming decoder drops it)", () => {
  const b = (...x: number[]) => new Uint8Array(x);
  const cases: [Uint8Array[], string[]][] = [
    [[b(0, 0, 0), b(0xef, 0xbb, 0xbf)], ["\0\0\0", "\ufeff", ""]],
    [[b(0xef, 0xbb, 0xbf, 0x41), b(0xef, 0xbb, 0xbf)], ["A", "\ufeff", ""]],
    [[b(0xef, 0xbb), b(0xbf), b(0xef, 0xbb, 0xbf, 0x42)], ["", "", "\ufeffB", ""]],
    [[b(0x41), b(0xef, 0xbb), b(0xbf)], ["A", "", "\ufeff", ""]],
  ];
  for (const [parts, texts] of cases) {
    assert.deepEqual(referenceDecode(parts), texts);
    const pieces = new Utf8Pieces();
    assert.deepEqual([...parts.map((p) => pieces.decode(p)), pieces.end()], texts);
  }
});

test("Utf8Pieces decodes as one streaming UTF-8 decoder does, whatever the cuts", () => {
  fc.assert(
    fc.property(elements, (parts) => {
      const expected = referenceDecode(parts);
      const pieces = new Utf8Pieces();
      const got = parts.map((p) => pieces.decode(p));
      got.push(pieces.end());
      assert.deepEqual(got, expected);
    }),
    { numRuns: 2000 },
  );
});

test("endsOnBoundary: complete characters only", () => {
  const b = (...x: number[]) => new Uint8Array(x);
  assert.equal(endsOnBoundary(encoder.encode("aé€😀")), true);
  assert.equal(endsOnBoundary(b()), false);
  assert.equal(endsOnBoundary(b(0xf0, 0x9f, 0x98)), false);
  assert.equal(endsOnBoundary(b(0xc3)), false);
  assert.equal(endsOnBoundary(b(0x41, 0x80)), false);
  assert.equal(endsOnBoundary(b(0x80, 0x80, 0x80, 0x80)), false);
  assert.equal(endsOnBoundary(b(0xff)), false);
});

test("chunk() writes the bytes of JSON.stringify of the chunk object", () => {
  fc.assert(
    fc.property(
      fc.constantFrom("completion" as const, "chat" as const),
      fc.string({ unit: "binary", maxLength: 20 }),
      fc.nat({ max: 300 }),
      fc.option(fc.string({ maxLength: 6 }), { nil: undefined }),
      fc.boolean(),
      fc.option(fc.constantFrom("stop", "length", 'a"b\\'), { nil: null }),
      fc.boolean(),
      (kind, model, index, text, role, finishReason, withUsage) => {
        const call = callIdentity(kind, model);
        const choice = kind === "chat"
          ? {
            index,
            delta: {
              ...(role ? { role: "assistant" } : {}),
              ...(text === undefined ? {} : { content: text }),
            },
            logprobs: null,
            finish_reason: finishReason,
          }
          : { index, text: text ?? "", logprobs: null, finish_reason: finishReason };
        const expected = JSON.stringify({
          id: call.id,
          object: kind === "chat" ? "chat.completion.chunk" : "text_completion",
          created: call.created,
          model: call.model,
          choices: [choice],
          ...(withUsage ? { usage: null } : {}),
        });
        assert.equal(chunk(kind, call, index, { text, role }, finishReason, withUsage), expected);
      },
    ),
    { numRuns: 2000 },
  );
});
