/**
 * Property tests of the HTTP front end's request parsing (fast-check), through `kserveHandler`
 * (no socket): generated KServe v2 infer bodies, JSON and binary-framed, against identity models.
 * Each is either answered 200 with the tensor echoed exactly, or 400 with an `error` message —
 * never a 500, never a thrown error; afterwards nothing stays in flight and the next valid request
 * is exact.
 *
 * Fixed seed; `FUZZ_RUNS=n` (default 150 per property) and `FUZZ_SEED=s` run more or other cases
 * (docs/testing.md).
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after } from "node:test";
import fc from "fast-check";
import { kserveHandler } from "../serve.ts";
import { test } from "./support/test.ts";
import { type Dtype, DTYPES, ELEMENTS, rawBytes } from "./support/fuzz_tensors.ts";
import { idle, liveCounter, sharedServer, stopShared } from "./support/env.ts";

after(stopShared);

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const SEED = Number(process.env.FUZZ_SEED ?? 20261202);
const params = { numRuns: RUNS, seed: SEED, endOnFailure: true };
const encoder = new TextEncoder();

interface Case {
  dtype: Dtype;
  body: Uint8Array;
  /** The Inference-Header-Content-Length header (binary framing), if any. */
  headerLength?: string;
  /** The echo a well-formed case gets, or why a wrong one is wrong. */
  expect: { values: unknown[] } | { why: string };
}

/** Values that are no tensor field: not arrays, or arrays of the wrong things. */
const junk = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.boolean(),
  fc.constant(null),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
  fc.constantFrom([null], [[1]], ["1", "2"], [{}]),
);

const cases: fc.Arbitrary<Case> = fc.constantFrom(...DTYPES).chain((dtype) =>
  fc.record({
    dtype: fc.constant(dtype),
    values: fc.array(ELEMENTS[dtype] as fc.Arbitrary<unknown>, { minLength: 1, maxLength: 5 }),
    binary: fc.boolean(),
    mutation: fc.nat(11),
    bad: junk,
    pick: fc.nat(1000),
  })
).map(({ dtype, values, binary, mutation, bad, pick }): Case => {
  const n = values.length;
  const input: Record<string, unknown> = { name: "INPUT0", datatype: dtype, shape: [1, n] };
  const raw = rawBytes(dtype, values);
  if (binary) input.parameters = { binary_data_size: raw.byteLength };
  else input.data = values;
  const json = (header: unknown) => encoder.encode(JSON.stringify(header));
  const framed = (header: unknown, blob: Uint8Array, length?: number) => {
    const head = json(header);
    const body = new Uint8Array(head.byteLength + blob.byteLength);
    body.set(head);
    body.set(blob, head.byteLength);
    return { body, headerLength: String(length ?? head.byteLength) };
  };
  const make = (inputs: unknown, why?: string, blob = raw, extra: object = {}): Case => {
    const header = { inputs, ...extra };
    const expect = why === undefined ? { values } : { why };
    return binary
      ? { dtype, ...framed(header, blob), expect }
      : { dtype, body: json(header), expect };
  };
  switch (mutation) {
    case 0:
      return make([input]);
    case 1: // with request parameters: Triton's own (read, not forwarded) and the model's
      return make([input], undefined, raw, {
        id: `r${pick}`,
        parameters: { priority: 0, timeout: pick * 1000, custom_s: "x", custom_i: pick },
      });
    case 2:
      return make([{ ...input, name: `X${pick}` }], "unknown input name");
    case 3: {
      const other = DTYPES[(DTYPES.indexOf(dtype) + 1 + (pick % 5)) % 6];
      return make(
        [{ ...input, datatype: typeof bad === "string" ? `${bad}!` : other }],
        "datatype",
      );
    }
    case 4:
      return make([{ ...input, shape: bad }], "shape not a list of dimensions");
    case 5:
      return make([{ ...input, shape: [1, n + 1 + (pick % 3)] }], "shape does not fit the data");
    case 6:
      if (binary) {
        return make([input], "binary data cut short", raw.subarray(0, raw.byteLength - 1));
      }
      return make([{ ...input, data: bad }], "data not a list of elements");
    case 7:
      return make(bad, "inputs not a list");
    case 8: {
      const without = { ...input };
      delete without[["name", "datatype", "shape"][pick % 3]];
      return make([without], "a field missing");
    }
    case 9: { // bytes that are no JSON, or JSON cut short
      const text = JSON.stringify({ inputs: [input] });
      const body = pick % 2
        ? encoder.encode(text.slice(0, pick % text.length))
        : Uint8Array.of(0xff, 0xfe, pick & 0xff);
      return { dtype, body, expect: { why: "not JSON" } };
    }
    case 10: { // a header length beyond the body, not a number, or negative
      const lengths = ["-1", "abc", "1e3", String(1 << 30), ""];
      const header = json({ inputs: [input] });
      const body = new Uint8Array(header.byteLength + raw.byteLength);
      body.set(header);
      body.set(raw, header.byteLength);
      return {
        dtype,
        body,
        headerLength: lengths[pick % lengths.length],
        expect: { why: "header length" },
      };
    }
    default: // an element of the wrong kind in JSON data
      return {
        dtype,
        body: json({
          inputs: [{
            ...input,
            parameters: undefined,
            data: values.map((v, i) => (i === pick % n ? bad : v)),
          }],
        }),
        expect: { why: "a wrong element" },
      };
  }
}).filter((c) => {
  // A junk element that is a valid element of the type after all is not a wrong case.
  if (!("why" in c.expect) || c.expect.why !== "a wrong element") return true;
  const text = new TextDecoder().decode(c.body);
  const data = JSON.parse(text).inputs[0].data as unknown[];
  // KServe's JSON may nest the elements (row-major): what flattens to valid elements is valid.
  const flat = data.flat(Infinity);
  return !(flat.length === data.length && flat.every((v) => isElement(c.dtype, v)));
});

function isElement(dtype: Dtype, v: unknown): boolean {
  switch (dtype) {
    case "BOOL":
      return typeof v === "boolean";
    case "BYTES":
      return typeof v === "string";
    case "FP32":
      return typeof v === "number";
    case "UINT8":
      return Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 255;
    case "INT32":
      return Number.isInteger(v) && (v as number) >= -(2 ** 31) && (v as number) < 2 ** 31;
    default:
      return Number.isSafeInteger(v);
  }
}

/** What JSON gives back for an element sent as `v`. */
function echoed(dtype: Dtype, v: unknown): unknown {
  return dtype === "FP32" ? Math.fround(v as number) : v;
}

test("generated infer bodies: 200 with the exact echo, or 400 with an error", async () => {
  const server = await sharedServer();
  const handler = kserveHandler(server);
  await fc.assert(
    fc.asyncProperty(cases, async (c) => {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (c.headerLength !== undefined) headers["inference-header-content-length"] = c.headerLength;
      const url = `http://localhost/v2/models/identity_${c.dtype.toLowerCase()}/infer`;
      const response = await handler(
        new Request(url, { method: "POST", headers, body: c.body as Uint8Array<ArrayBuffer> }),
      );
      const text = await response.text();
      if ("values" in c.expect) {
        assert.equal(response.status, 200, text);
        const out = JSON.parse(text).outputs[0];
        assert.equal(out.datatype, c.dtype);
        assert.deepEqual(out.shape, [1, c.expect.values.length]);
        assert.deepEqual(out.data, c.expect.values.map((v) => echoed(c.dtype, v)));
        return;
      }
      assert.equal(response.status, 400, `${c.expect.why}: ${response.status} ${text}`);
      assert.equal(typeof JSON.parse(text).error, "string", text);
    }),
    params,
  );
  await idle(server);
  const live = await liveCounter();
  if (live) assert.equal(live("request"), 0, "requests left in the fake core");
  const ok = await handler(
    new Request("http://localhost/v2/models/identity_int32/infer", {
      method: "POST",
      body: JSON.stringify({
        inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, 2], data: [3, 4] }],
      }),
    }),
  );
  assert.deepEqual((await ok.json()).outputs[0].data, [3, 4]);
});
