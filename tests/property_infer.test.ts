/**
 * Property tests of what users send to `infer()` (fast-check): requests of every data type,
 * shape and data kind against the identity models, each either echoed exactly as a well-formed one
 * would be, or refused with a `TritonError` of the code its case expects — never another error.
 * Afterwards nothing stays in flight and the next valid request is exact. Then the other fields
 * of a request (id, outputs, parameters, flags, …) and `ServerOptions`, whose wrong kinds are
 * INVALID_ARG.
 *
 * Fixed seed; `FUZZ_RUNS=n` (default 150 per property) and `FUZZ_SEED=s` run more or other cases
 * (docs/testing.md).
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after } from "node:test";
import { test } from "./support/test.ts";
import fc from "fast-check";
import { bf16ToNumber, type DataTypeName, fp16ToNumber, TritonError } from "../mod.ts";
import { planServerOptions } from "../src/options_plan.ts";
import { idle, liveCounter, MODEL_REPOSITORY, sharedServer, stopShared } from "./support/env.ts";

after(stopShared);

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const SEED = Number(process.env.FUZZ_SEED ?? 20261202);
const params = { numRuns: RUNS, seed: SEED, endOnFailure: true };

const DTYPES = [
  "BOOL",
  "UINT8",
  "UINT16",
  "UINT32",
  "UINT64",
  "INT8",
  "INT16",
  "INT32",
  "INT64",
  "FP16",
  "FP32",
  "FP64",
  "BF16",
  "BYTES",
] as const satisfies readonly DataTypeName[];
type Dtype = (typeof DTYPES)[number];

const Float16 = (globalThis as { Float16Array?: new (n: number | number[]) => ArrayBufferView })
  .Float16Array;

/** A TypedArray constructor. */
type TypedArrayCtor = new (n: number) => ArrayBufferView;

/** The TypedArrays each data type takes (written out here, not read from the binding). */
function arraysFor(dtype: Dtype): TypedArrayCtor[] {
  const own: Record<Dtype, TypedArrayCtor[]> = {
    BOOL: [Uint8Array],
    UINT8: [Uint8Array],
    UINT16: [Uint16Array],
    UINT32: [Uint32Array],
    UINT64: [BigUint64Array],
    INT8: [Int8Array],
    INT16: [Int16Array],
    INT32: [Int32Array],
    INT64: [BigInt64Array],
    FP16: Float16 ? [Float16, Uint16Array] : [Uint16Array],
    FP32: [Float32Array],
    FP64: [Float64Array],
    BF16: [Uint16Array],
    BYTES: [],
  };
  return own[dtype];
}

const ALL_ARRAYS = [
  Uint8Array,
  Int8Array,
  Uint16Array,
  Int16Array,
  Uint32Array,
  Int32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
];

const INT_RANGE: Partial<Record<Dtype, [number, number]>> = {
  UINT8: [0, 255],
  UINT16: [0, 65535],
  UINT32: [0, 4294967295],
  INT8: [-128, 127],
  INT16: [-32768, 32767],
  INT32: [-2147483648, 2147483647],
};

/** Plain element values of `dtype` as the user writes them; the echo must give them back. */
function elements(dtype: Dtype): fc.Arbitrary<unknown> {
  const range = INT_RANGE[dtype];
  if (range) return fc.integer({ min: range[0], max: range[1] });
  switch (dtype) {
    case "BOOL":
      return fc.boolean();
    case "UINT64":
      return fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
    case "INT64":
      return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    case "FP16":
    case "BF16":
      return fc.integer({ min: -256, max: 256 }); // exact in both
    case "FP32":
      return fc.float({ noNaN: true });
    case "FP64":
      return fc.double({ noNaN: true });
    default:
      return fc.string({ maxLength: 12 });
  }
}

/** `values` in the data type's TypedArray (or strings for BYTES), the way the user would. */
function typedData(dtype: Dtype, values: unknown[]): unknown {
  switch (dtype) {
    case "BOOL":
      return Uint8Array.from(values as boolean[], (b) => (b ? 1 : 0));
    case "BYTES":
      return values;
    case "FP16":
      return Float16 ? new Float16(values as number[]) : undefined;
    case "BF16":
      return undefined; // bits only: the plain-number form stands for it
    default: {
      const ctor = arraysFor(dtype)[0] as unknown as { from(v: unknown[]): unknown };
      return ctor.from(values);
    }
  }
}

/** An output's elements as plain values, for comparing with what was sent. */
function plain(dtype: Dtype, data: ArrayLike<unknown>): unknown[] {
  const a = Array.from(data as ArrayLike<unknown>);
  if (dtype === "BOOL") return a.map((v) => v === 1);
  if (dtype === "BYTES") return a.map((e) => new TextDecoder().decode(e as Uint8Array));
  if (dtype === "BF16") return a.map((v) => bf16ToNumber(v as number));
  if (dtype === "FP16" && data instanceof Uint16Array) {
    return a.map((v) => fp16ToNumber(v as number));
  }
  return a.map((v) => (typeof v === "number" ? (Object.is(v, -0) ? 0 : v) : v));
}

interface Case {
  dtype: Dtype;
  input: unknown;
  inputName: string;
  /** The values echoed for a well-formed case, or the error code a wrong one gets. */
  expect: { values: unknown[] } | { code: string; why: string };
}

/** A well-formed request for identity_<dtype>: shape [1, n], data as a TypedArray or plain. */
const wellFormed = fc.constantFrom(...DTYPES).chain((dtype) =>
  fc.record({
    dtype: fc.constant(dtype),
    values: fc.array(elements(dtype), { minLength: 1, maxLength: 6 }),
    typed: fc.boolean(),
  })
).map(({ dtype, values, typed }) => {
  const asTyped = typed ? typedData(dtype, values) : undefined;
  const data = asTyped ?? values;
  return { dtype, values, data } as const;
});

const junk = fc.oneof(
  fc.constantFrom(undefined, null, 0, 1.5, -1, "12", "", true, {}, [], [[1]], Symbol.for("x")),
  fc.constantFrom(() => 1, new Map(), new Date(0), new DataView(new ArrayBuffer(4))),
  fc.bigInt(),
  fc.string(),
);

const INVALID = (why: string) => ({ code: "INVALID_ARG", why });

/** Mutations that make a well-formed request wrong, each with the code it must get. */
const cases: fc.Arbitrary<Case> = fc.tuple(wellFormed, fc.nat(9), junk, fc.nat(1000)).map(
  ([ok, kind, bad, pick]): Case => {
    const { dtype, values, data } = ok;
    const n = values.length;
    const rec = (r: Record<string, unknown>) => ({ dtype, shape: [1, n], data, ...r });
    const base = { dtype, inputName: "INPUT0" };
    switch (kind) {
      case 0:
        return { ...base, input: rec({}), expect: { values } };
      case 1: // the whole input is not a tensor at all
        return { ...base, input: bad, expect: INVALID("input value") };
      case 2: { // another data type than the model's (or not a data type)
        const other = typeof bad === "string"
          ? bad
          : DTYPES[(DTYPES.indexOf(dtype) + 1 + (pick % 13)) % 14];
        return { ...base, input: rec({ dtype: other }), expect: INVALID("dtype") };
      }
      case 3: { // a shape that is not one, or does not fit
        const shapes: unknown[] = [
          bad,
          [1, -1],
          [1, n + 0.5],
          [1, String(n)],
          [1, n + 1],
          [n + 1, n],
          [9, 1],
          [1, n, 2],
        ];
        const shape = shapes[pick % shapes.length];
        return { ...base, input: rec({ shape }), expect: INVALID("shape") };
      }
      case 4: // data that is not data
        return { ...base, input: rec({ data: bad }), expect: INVALID("data") };
      case 5: { // one element of the wrong kind
        const wrongs: Record<string, unknown[]> = {
          BYTES: [1, null, {}, true],
          BOOL: [1, "true", null],
          FP32: ["1", null, 1n],
          FP64: ["1", null, 1n],
          FP16: ["1", null],
          BF16: ["1", null],
          UINT64: [1.5, "1", -1n, 2n ** 64n],
          INT64: [1.5, "1", 2n ** 63n],
        };
        const range = INT_RANGE[dtype];
        const list = wrongs[dtype] ?? [range![1] + 1, range![0] - 1, 0.5, "1", null, 1n];
        const plainValues = [...values];
        plainValues[pick % n] = list[pick % list.length];
        return { ...base, input: rec({ data: plainValues }), expect: INVALID("element") };
      }
      case 6: { // a TypedArray the data type does not take
        const ok = arraysFor(dtype);
        const wrong = ALL_ARRAYS.filter((a) => !ok.includes(a));
        const ctor = wrong[pick % wrong.length];
        return { ...base, input: rec({ data: new ctor(n) }), expect: INVALID("array kind") };
      }
      case 7: // not the model's input name
        return { ...base, inputName: `BOGUS${pick}`, input: rec({}), expect: INVALID("name") };
      case 8: // a 1-D input where the model batches
        return { ...base, input: rec({ shape: [n] }), expect: INVALID("no batch dimension") };
      default: // a plain array of numbers: needs a data type
        return {
          ...base,
          input: values.map((_, i) => i),
          expect: INVALID("number[]"),
        };
    }
  },
);

/** Sends one case; returns its outputs' values or the error thrown (synchronously or later). */
async function send(c: Case): Promise<{ values: unknown[] } | { error: unknown }> {
  const server = await sharedServer();
  try {
    const model = server.model(`identity_${c.dtype.toLowerCase()}`);
    const out: unknown[] = [];
    for await (const r of model.infer({ inputs: { [c.inputName]: c.input } as never })) {
      const t = r.outputs.OUTPUT0;
      assert.deepEqual(t.shape, [1, (c.expect as { values: unknown[] }).values?.length ?? -1]);
      out.push(...plain(c.dtype, t.data as ArrayLike<unknown>));
      r.dispose();
    }
    return { values: out };
  } catch (error) {
    return { error };
  }
}

test("generated inputs: echoed exactly, or TritonError with the expected code", async () => {
  await fc.assert(
    fc.asyncProperty(cases, async (c) => {
      const got = await send(c);
      if ("values" in c.expect) {
        if ("error" in got) {
          throw new Error(`a well-formed ${c.dtype} request failed: ${got.error}`);
        }
        const sent = c.expect.values.map((v) => (Object.is(v, -0) ? 0 : v));
        assert.deepEqual(got.values, sent, "echo");
        return;
      }
      if (!("error" in got)) throw new Error(`a wrong request (${c.expect.why}) was answered`);
      const e = got.error;
      if (!(e instanceof TritonError)) throw new Error(`${c.expect.why}: not a TritonError: ${e}`);
      assert.equal(e.code, c.expect.code, `${c.expect.why}: ${e.message}`);
    }),
    params,
  );
  const server = await sharedServer();
  await idle(server);
  const live = await liveCounter();
  if (live) assert.equal(live("request"), 0, "requests left in the fake core");
  using r = await server.model("identity_int32").inferOne({
    inputs: { INPUT0: { dtype: "INT32", shape: [1, 3], data: new Int32Array([7, 8, 9]) } },
  });
  assert.deepEqual(Array.from(r.output("OUTPUT0", "INT32").data), [7, 8, 9]);
});

/** Whether `v` is a valid unsigned 64-bit integer for a request field. */
function isU64(v: unknown): boolean {
  return (typeof v === "bigint" && v >= 0n && v < 2n ** 64n) ||
    (typeof v === "number" && Number.isInteger(v) && v >= 0);
}

const defined = junk.filter((v) => v !== undefined);
const OUTPUT_MEMORY = /^(cpu|cpu_pinned|auto|gpu(:\d+)?)$/;

/** Request fields other than inputs, each with a wrong kind. */
const wrongFields = fc.oneof(
  fc.record({ id: defined.filter((v) => typeof v !== "string") }),
  fc.record({ outputs: defined.filter((v) => !Array.isArray(v) || v.length > 0) }),
  fc.record({ priority: defined.filter((v) => !isU64(v)) }),
  fc.record({ timeoutUs: defined.filter((v) => !isU64(v)) }),
  fc.record({ correlationId: defined.filter((v) => typeof v !== "string" && !isU64(v)) }),
  fc.record({ sequenceStart: defined.filter((v) => typeof v !== "boolean") }),
  fc.record({ raiseOnError: defined.filter((v) => typeof v !== "boolean") }),
  fc.record({
    outputMemory: defined.filter((v) => typeof v !== "string" || !OUTPUT_MEMORY.test(v)),
  }),
  fc.record({ signal: defined }),
  fc.record({ responseQueue: defined.filter((v) => !Array.isArray(v)) }),
  fc.record({ trace: defined.filter((v) => typeof v !== "object" || v === null) }),
  fc.record({ parameters: fc.constantFrom("x", 1, true, [1], 5n, () => 1) }),
  fc.record({
    parameters: fc.dictionary(
      fc.string({ minLength: 1, maxLength: 6 }).map((k) => `p_${k}`),
      fc.oneof(
        fc.constantFrom(null, undefined, {}, [], { type: "INT", value: 1.5 }, { type: "X" }),
        fc.bigInt({ min: 2n ** 63n }),
      ),
      { minKeys: 1, maxKeys: 3 },
    ),
  }),
);

test("generated request fields of the wrong kind: TritonError INVALID_ARG", async () => {
  const server = await sharedServer();
  const model = server.model("identity_int32");
  const inputs = { INPUT0: { dtype: "INT32", shape: [1, 1], data: new Int32Array([1]) } } as const;
  await fc.assert(
    fc.asyncProperty(wrongFields, async (fields) => {
      try {
        for await (const r of model.infer({ inputs, ...fields } as never)) r.dispose();
      } catch (e) {
        if (!(e instanceof TritonError)) {
          throw new Error(`${JSON.stringify(Object.keys(fields))}: not a TritonError: ${e}`);
        }
        assert.equal(e.code, "INVALID_ARG", e.message);
        return;
      }
      throw new Error(`accepted ${String(Object.keys(fields))}: ${describe(fields)}`);
    }),
    params,
  );
  await idle(server);
});

function describe(v: unknown): string {
  try {
    return JSON.stringify(v, (_, x) => (typeof x === "bigint" ? `${x}n` : x));
  } catch {
    return String(v);
  }
}

const OPTION_KEYS = [
  "serverId",
  "backendDirectory",
  "backendConfig",
  "modelControlMode",
  "startupModels",
  "strictModelConfig",
  "modelLoadThreadCount",
  "modelLoadRetryCount",
  "exitOnError",
  "exitTimeoutSecs",
  "rateLimiter",
  "memory",
  "cache",
  "hostPolicy",
  "metrics",
  "log",
  "enablePeerAccess",
  "minSupportedComputeCapability",
  "bufferManagerThreadCount",
  "modelLoadDeviceLimit",
];

test("generated ServerOptions: a plan, or TritonError INVALID_ARG before any C call", () => {
  const value = fc.oneof(
    junk,
    fc.dictionary(fc.string({ maxLength: 8 }), junk, { maxKeys: 3 }),
    fc.array(junk, { maxLength: 3 }),
  );
  fc.assert(
    fc.property(
      fc.dictionary(fc.constantFrom(...OPTION_KEYS), value, { maxKeys: 3 }),
      fc.oneof(fc.constant(MODEL_REPOSITORY), junk),
      (options, repository) => {
        try {
          planServerOptions({ modelRepository: repository, ...options } as never);
        } catch (e) {
          if (!(e instanceof TritonError)) {
            throw new Error(`${describe(options)}: not a TritonError: ${e}`);
          }
          assert.equal(e.code, "INVALID_ARG", e.message);
        }
      },
    ),
    { ...params, numRuns: RUNS * 4 },
  );
});
