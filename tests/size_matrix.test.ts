/**
 * Every byte arrives (issue 30): the identity models' echo, byte for byte, over every path a
 * tensor takes — in-process `model.infer()` and `model.inferOne()`; HTTP `infer` with JSON data
 * and with binary data (the binary tensor extension, asked for with `binary_data_output` and with
 * an output's `binary_data`); HTTP `generate` and `generate_stream` (SSE); gRPC `ModelInfer` with
 * `raw_input_contents` and `ModelStreamInfer`, each on both transports; `kserveHandler` called with a `Request` — for
 * every data type, at sizes around each place the binding changes how it moves an output's bytes
 * (`POOLED_LIMIT`, `DATA_LIMIT`, `RECORD_BYTES`, `COPY_LIMIT`: see tests/support/sizes.ts), empty,
 * one element, 8 MiB and 64 MiB, one call and 8 concurrent calls on one connection; and in-process
 * responses held past the server's budgets (`HELD_RESPONSES_BUDGET`, `VIEWED_BYTES_BUDGET`).
 *
 * The data is noise (never zeros, never periodic), so a copy shifted, cut short, or left as the
 * zeros of a buffer never written fails. Where a path cannot carry a data type (FP16 and BF16 have
 * no JSON form) the error it answers is checked instead. After each group nothing may be left in
 * flight: no request in Triton, no call being served, and on the fake core no live request,
 * response or allocator buffer.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { test } from "./support/test.ts";
import type { DataTypeName } from "../mod.ts";
import { HELD_RESPONSES_BUDGET, VIEWED_BYTES_BUDGET } from "../src/server_children.ts";
import { COPY_LIMIT } from "../ffi/response_fields.ts";
import { postBinary, postJson } from "./support/serve.ts";
import {
  ALL_DTYPES,
  assertQuiet,
  assertSameBytes,
  bytesCase,
  caseOfBytes,
  MiB,
  modelOf,
  NO_JSON,
  numericCase,
  type SizeCase,
  tensorOf,
  thresholdCases,
} from "./support/sizes.ts";
import {
  type Path,
  sizePaths,
  type SizeServing,
  startSizeServing,
  stopSizeServing,
} from "./support/size_paths.ts";

let s: SizeServing;
before(async () => {
  s = await startSizeServing();
});
after(() => stopSizeServing(s));

const {
  inProcessInfer,
  inProcessInferOne,
  httpJson,
  httpBinary,
  handlerBinary,
  generate,
  generateStream,
  grpcUnary,
  grpcStream,
  grpcUnaryH2,
  grpcStreamH2,
  streamEcho,
} = sizePaths(() => s);

/** The paths that carry raw bytes (gRPC on both transports). */
const BINARY_PATHS: readonly Path[] = [
  inProcessInfer,
  inProcessInferOne,
  httpBinary,
  handlerBinary,
  grpcUnary,
  grpcStream,
  grpcUnaryH2,
  grpcStreamH2,
];
/** A path's counterpart on the grpc-js transport (itself for the others). */
const onGrpcJs = (path: Path) =>
  path === grpcUnaryH2 ? grpcUnary : path === grpcStreamH2 ? grpcStream : path;
/** The paths that carry JSON. */
const JSON_PATHS: readonly Path[] = [httpJson, generate, generateStream];

/** Cases made once per data type (binary and JSON-safe), shared by the paths. */
const smallCases = new Map<string, SizeCase[]>();
function casesFor(dtype: DataTypeName, json: boolean): SizeCase[] {
  const key = `${dtype}/${json}`;
  let cases = smallCases.get(key);
  if (!cases) smallCases.set(key, cases = thresholdCases(dtype, json));
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Every data type at every threshold, empty and one element: every path.

for (const path of [...BINARY_PATHS, ...JSON_PATHS]) {
  test(`${path.name}: every data type, empty, one element, each threshold -1/=/+1`, {
    skip: path.skip,
  }, async () => {
    for (const dtype of ALL_DTYPES) {
      if (path.json && NO_JSON.has(dtype)) continue; // see the test of their errors below
      for (const c of casesFor(dtype, path.json)) await path.echo(c);
    }
    await assertQuiet(s);
  });
}

// ---------------------------------------------------------------------------------------------
// FP16 and BF16 over JSON: the clear error instead.

test("FP16 and BF16 cannot go as JSON: infer, generate and generate_stream answer 400 saying why", async () => {
  for (const dtype of ["FP16", "BF16"] as const) {
    for (const n of [0, 1, COPY_LIMIT / 2 + 1]) {
      const c = numericCase(dtype, n, "as JSON");
      // JSON data: the bits as numbers (what a client might try).
      const data = `[${Array.from(new Uint16Array(c.bytes.buffer, 0, n)).join(",")}]`;
      const infer = await postJson(
        `${s.serving.url}/v2/models/${modelOf(dtype)}/infer`,
        `{"inputs":[{"name":"INPUT0","datatype":"${dtype}","shape":[1,${n}],"data":${data}}]}`,
      );
      assert.equal(infer.status, 400);
      assert.match(
        (await infer.json()).error,
        new RegExp(`input 'INPUT0': ${dtype} data cannot be sent as JSON; use the binary data`),
      );
      // Binary in, JSON out.
      const header = {
        inputs: [{
          name: "INPUT0",
          datatype: dtype,
          shape: [1, n],
          parameters: { binary_data_size: c.bytes.byteLength },
        }],
      };
      const out = await postBinary(`${s.serving.url}/v2/models/${modelOf(dtype)}/infer`, header, [
        c.bytes,
      ]);
      assert.equal(out.status, 400);
      assert.match(
        (await out.json()).error,
        new RegExp(`output 'OUTPUT0': ${dtype} data cannot be sent as JSON; ask for it as binary`),
      );
      for (const endpoint of ["generate", "generate_stream"]) {
        const r = await postJson(
          `${s.serving.url}/v2/models/${modelOf(dtype)}/${endpoint}`,
          `{"INPUT0":${data}}`,
        );
        assert.equal(r.status, 400, endpoint);
        assert.match(
          (await r.json()).error,
          new RegExp(`input 'INPUT0': ${dtype} data cannot be sent as JSON`),
          endpoint,
        );
      }
    }
  }
  await assertQuiet(s);
});

// ---------------------------------------------------------------------------------------------
// 8 MiB, one call at a time. Every path carries BYTES as one element of 8 MiB; the 8 concurrent
// calls below carry 8 MiB of eight data types on every path (CONCURRENT). Here in-process
// inferOne() carries every data type; infer() and the paths over sockets and through the handler
// the others, dealt out among them (one or two each), and BYTES as many short elements (some
// 80,000) goes over HTTP and gRPC: every data type on every path took 10–15 s per runtime. The
// JSON paths take one data type each (the JSON text of 8 MiB of numbers is 20–45 MB, seconds per
// call): INT32 (23 MB of JSON), BYTES as many short strings, BYTES as one string.

const EIGHT = 8 * MiB;
const bigCases = new Map<string, SizeCase>();
function big(dtype: DataTypeName, bytes: number, json = false): SizeCase {
  const key = `${dtype}/${bytes}/${json}`;
  let c = bigCases.get(key);
  if (!c) bigCases.set(key, c = caseOfBytes(dtype, bytes, `${bytes / MiB} MiB`, json));
  return c;
}
/** BYTES as one element of `bytes` serialized bytes. */
function bigOne(bytes: number, json = false): SizeCase {
  const key = `BYTES-one/${bytes}/${json}`;
  let c = bigCases.get(key);
  if (!c) bigCases.set(key, c = bytesCase(bytes, `${bytes / MiB} MiB`, json, true));
  return c;
}

/** The data types of the 8 concurrent calls: a mix, each its own data (BYTES: one element). */
const CONCURRENT: readonly DataTypeName[] = [
  "UINT8",
  "INT32",
  "FP64",
  "BYTES",
  "BF16",
  "INT64",
  "BOOL",
  "FP32",
];

/** The data types a path carries at 8 MiB one call at a time (besides BYTES as one element). */
function eightMiBTypes(given: Path): DataTypeName[] {
  const path = onGrpcJs(given); // the http2 transport carries what grpc-js does
  if (path === inProcessInferOne) return ALL_DTYPES.filter((d) => d !== "BYTES");
  const others = ALL_DTYPES.filter((d) => !CONCURRENT.includes(d));
  const dealt = [inProcessInfer, httpBinary, handlerBinary, grpcUnary, grpcStream];
  const mine = others.filter((_, i) => i % dealt.length === dealt.indexOf(path));
  return path === httpBinary || path === grpcUnary ? [...mine, "BYTES"] : mine;
}

for (const path of BINARY_PATHS) {
  const dtypes = eightMiBTypes(path);
  test(`${path.name}: one call of 8 MiB: ${dtypes.join(", ")}; BYTES as one element`, {
    skip: path.skip,
  }, async () => {
    for (const dtype of dtypes) await path.echo(big(dtype, EIGHT));
    await path.echo(bigOne(EIGHT));
    await assertQuiet(s);
  });
}

const JSON_LARGE: ReadonlyMap<Path, () => SizeCase> = new Map([
  [httpJson, () => big("INT32", EIGHT, true)],
  [generate, () => big("BYTES", EIGHT, true)],
  [generateStream, () => bigOne(EIGHT, true)],
]);

for (const path of JSON_PATHS) {
  test(`${path.name}: 8 MiB (one data type)`, { skip: path.skip }, async () => {
    await path.echo(JSON_LARGE.get(path)!());
    await assertQuiet(s);
  });
}

// ---------------------------------------------------------------------------------------------
// 8 concurrent calls at 8 MiB on one connection: one gRPC channel (and for the stream, one
// stream), fetch to one origin, one server in process.

for (const path of BINARY_PATHS) {
  test(`${path.name}: 8 concurrent calls of 8 MiB`, { skip: path.skip }, async () => {
    const cases = CONCURRENT.map((d) => d === "BYTES" ? bigOne(EIGHT) : big(d, EIGHT));
    if (onGrpcJs(path) === grpcStream) await streamEcho(path, cases);
    else await Promise.all(cases.map((c) => path.echo(c)));
    await assertQuiet(s);
  });
}

for (const path of JSON_PATHS) {
  // JSON text of 8 × 8 MiB is some 250 MB, minutes per runtime: 8 concurrent calls of
  // 2 × COPY_LIMIT each instead.
  test(`${path.name}: 8 concurrent calls of 2 × COPY_LIMIT`, { skip: path.skip }, async () => {
    const cases = CONCURRENT.filter((d) => !NO_JSON.has(d)).concat(["UINT16"]).map((d) =>
      big(d, 2 * COPY_LIMIT, true)
    );
    assert.equal(cases.length, 8);
    await Promise.all(cases.map((c) => path.echo(c)));
    await assertQuiet(s);
  });
}

// ---------------------------------------------------------------------------------------------
// 64 MiB of INT64 on each path that carries raw bytes, the same data for all (made once: 64 MiB
// of noise takes a quarter of a second). The JSON paths stop at 8 MiB:
// 64 MiB of numbers is 200–400 MB of JSON text, past the front end's 64 MiB JSON limit
// (`maxJsonBytes`), and would take minutes per runtime.

for (const path of BINARY_PATHS) {
  test(`${path.name}: INT64 at 64 MiB`, { skip: path.skip }, async () => {
    await path.echo(big("INT64", 64 * MiB));
    await assertQuiet(s);
  });
}

// ---------------------------------------------------------------------------------------------
// In process, responses held past the server's budgets: past them a response is read into JS
// memory on arrival instead of viewed in place.

test(`in-process: ${HELD_RESPONSES_BUDGET + 8} responses past COPY_LIMIT held at once (HELD_RESPONSES_BUDGET)`, async () => {
  const cases = Array.from(
    { length: HELD_RESPONSES_BUDGET + 8 },
    (_, i) => numericCase("UINT8", COPY_LIMIT + 1 + i, "held"),
  );
  const responses = await Promise.all(
    cases.map((c) =>
      s.server.model(modelOf(c.dtype)).inferOne({ inputs: { INPUT0: tensorOf(c) } })
    ),
  );
  try {
    responses.forEach((r, i) =>
      assertSameBytes(
        r.output("OUTPUT0", "UINT8").toBytes(),
        cases[i].bytes,
        `held ${cases[i].label}`,
      )
    );
  } finally {
    for (const r of responses) r.dispose();
  }
  await assertQuiet(s);
});

test(`in-process: 8 MiB responses held past VIEWED_BYTES_BUDGET (${VIEWED_BYTES_BUDGET / MiB} MiB)`, async () => {
  const count = VIEWED_BYTES_BUDGET / EIGHT + 3;
  // Each its own data (the 8 MiB cases made above), so that responses mixed up would show.
  const dtypes = ALL_DTYPES.filter((d) => d !== "BYTES");
  const cases = Array.from({ length: count }, (_, i) => big(dtypes[i % dtypes.length], EIGHT));
  const responses = [];
  try {
    for (const c of cases) {
      responses.push(
        await s.server.model(modelOf(c.dtype)).inferOne({ inputs: { INPUT0: tensorOf(c) } }),
      );
    }
    responses.forEach((r, i) =>
      assertSameBytes(
        r.output("OUTPUT0", cases[i].dtype).toBytes(),
        cases[i].bytes,
        `held #${i} ${cases[i].label}`,
      )
    );
  } finally {
    for (const r of responses) r.dispose();
  }
  await assertQuiet(s);
});
