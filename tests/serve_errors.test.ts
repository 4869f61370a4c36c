/**
 * `serve()` under bad input: the error statuses, malformed bodies (non-JSON, wrong types, data
 * that does not fit its shape, truncated binary, wrong header lengths, huge declared sizes)
 * answered 400/413 without reaching the core or leaking, restricted APIs, and framing over a raw
 * socket (pipelining, chunked bodies, bodies in pieces, truncated bodies).
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import { test } from "./support/test.ts";
import { TritonError } from "../mod.ts";
import { HTTP_STATUS, type HttpService, kserveHandler, serve } from "../serve.ts";
import {
  binaryBody,
  postBinary,
  postJson,
  rawExchange,
  type Serving,
  settled,
  startServing,
  statusCodes,
  stopServing,
} from "./support/serve.ts";

let s: Serving;
/** A second service on the same server: a 1 MiB body cap, restricted repository and metrics. */
let guarded: HttpService;
const CAP = 1 << 20;

before(async () => {
  s = await startServing();
  guarded = await serve(s.server, {
    port: 0,
    maxRequestBytes: CAP,
    restrictedApis: {
      "model-repository": { header: "admin-key", value: "s3cret" },
      metrics: { header: "admin-key", value: "s3cret" },
    },
  });
});
after(async () => {
  await guarded?.close();
  await stopServing(s);
});

const int32Input = (data: unknown, shape: unknown = [1, 3]) => ({
  inputs: [{ name: "INPUT0", datatype: "INT32", shape, data }],
});

/** The status the handler must answer for what `fn` throws through the public API. */
function statusOfApi(fn: () => unknown): number {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof TritonError, String(e));
    return HTTP_STATUS[e.code];
  }
  throw new Error("expected the API call to throw");
}

async function expectError(r: Response, status: number, pattern: RegExp): Promise<void> {
  const text = await r.text();
  assert.equal(r.status, status, text);
  assert.equal(r.headers.get("content-type"), "application/json");
  const json = JSON.parse(text);
  assert.deepEqual(Object.keys(json), ["error"]);
  assert.match(json.error, pattern);
}

describe("error statuses", () => {
  test("infer: every path form the routes take answers as they do", async () => {
    const body = JSON.stringify(int32Input([4, 5, 6]));
    const post = (path: string) => fetch(`${s.url}${path}`, { method: "POST", body });
    for (
      const path of [
        "/v2/models/identity_int32/infer",
        "/v2/models/identity_int32/versions/1/infer",
        "/v2/models/identity_int32/infer?a=b",
        "/v2/models/identity_int32/infer#fragment",
        "/v2/models/identity%5Fint32/infer", // percent-encoded: the router decodes it
      ]
    ) {
      const r = await post(path);
      assert.equal(r.status, 200, `${path}: ${await r.clone().text()}`);
      const json = await r.json();
      assert.equal(json.model_name, "identity_int32", path);
      assert.deepEqual(json.outputs[0].data, [4, 5, 6], path);
    }
    const unknownVersion = statusOfApi(() => s.server.model("identity_int32", 7).metadata());
    await expectError(
      await post("/v2/models/identity_int32/versions/7/infer"),
      unknownVersion,
      /./,
    );
    await expectError(await post("/v2/models/identity_int32/versions/x/infer"), 404, /^Not Found$/);
    await expectError(await post("/v2/models/identity_int32/infer/"), 404, /^Not Found$/);
    await expectError(await post("/v2/models//infer"), 404, /^Not Found$/);
    await expectError(await fetch(`${s.url}/v2/models/identity_int32/infer`), 405, /Method/);
  });

  test("unknown path 404, wrong method 405", async () => {
    await expectError(await fetch(`${s.url}/v2/nothing`), 404, /^Not Found$/);
    await expectError(await fetch(`${s.url}/v2/`), 404, /^Not Found$/);
    await expectError(await fetch(`${s.url}/v2/models/x/versions/abc`), 404, /^Not Found$/);
    await expectError(
      await fetch(`${s.url}/v2/health/live`, { method: "POST" }),
      405,
      /^Method Not Allowed$/,
    );
    await expectError(
      await fetch(`${s.url}/v2/models/identity_int32/infer`),
      405,
      /^Method Not Allowed$/,
    );
    await expectError(
      await fetch(`${s.url}/v2/repository/index`),
      405,
      /^Method Not Allowed$/,
    );
  });

  test("a model name holding a NUL: 400, not the model before the NUL", async () => {
    await expectError(
      await fetch(`${s.url}/v2/models/identity_int32%00x/ready`),
      400,
      /the model name must not contain a NUL character/,
    );
    await expectError(
      await postJson(`${s.url}/v2/models/identity_int32%00x/infer`, int32Input([1, 2, 3])),
      400,
      /NUL/,
    );
  });

  test("a model that fails: INTERNAL is 500 with the model's message", async () => {
    await expectError(
      await postJson(`${s.url}/v2/models/error_model/infer`, {
        inputs: [{ name: "INPUT0", datatype: "INT32", shape: [2], data: [1, 2] }],
      }),
      500,
      /error_model: this model always fails/,
    );
  });

  test("a decoupled model on infer: UNSUPPORTED, 501", async () => {
    await expectError(
      await postJson(`${s.url}/v2/models/sleep_stream/infer`, {
        inputs: [
          { name: "COUNT", datatype: "INT32", shape: [1], data: [1] },
          { name: "DELAY_MS", datatype: "INT32", shape: [1], data: [0] },
        ],
      }),
      501,
      /decoupled.*generate_stream/,
    );
  });

  test("the core's errors keep their code: unknown model, unknown input, wrong type", async () => {
    await expectError(
      await postJson(`${s.url}/v2/models/no_such_model/infer`, int32Input([1, 2, 3])),
      statusOfApi(() => s.server.model("no_such_model").transactionProperties()),
      /no_such_model/,
    );
    const model = s.server.model("identity_int32");
    await expectError(
      await postJson(`${s.url}/v2/models/identity_int32/infer`, {
        inputs: [{ name: "NOPE", datatype: "INT32", shape: [1, 1], data: [1] }],
      }),
      statusOfApi(() =>
        model.infer({
          inputs: { NOPE: { dtype: "INT32", shape: [1, 1], data: new Int32Array(1) } },
        })
      ),
      /NOPE/,
    );
    await expectError(
      await postJson(`${s.url}/v2/models/identity_int32/infer`, {
        inputs: [{ name: "INPUT0", datatype: "FP32", shape: [1, 1], data: [1] }],
      }),
      statusOfApi(() =>
        model.infer({
          inputs: { INPUT0: { dtype: "FP32", shape: [1, 1], data: new Float32Array(1) } },
        })
      ),
      /INPUT0/,
    );
    await settled(s);
  });

  test("what this server does not offer: 501; a region where none is served: 404", async () => {
    await expectError(
      await postJson(`${s.url}/v2/models/identity_int32/infer`, {
        inputs: [{
          name: "INPUT0",
          datatype: "INT32",
          shape: [1, 1],
          parameters: { shared_memory_region: "r", shared_memory_byte_size: 4 },
        }],
      }),
      404,
      /^Unable to find shared memory region: 'r'$/,
    );
    await expectError(
      await postJson(`${s.url}/v2/models/identity_int32/infer`, {
        ...int32Input([1, 2, 3]),
        outputs: [{ name: "OUTPUT0", parameters: { classification: -2 } }],
      }),
      400,
      /^invalid value for 'classification' parameter, expected >= 0$/,
    );
    const raw = await fetch(`${s.url}/v2/models/identity_int32/infer`, {
      method: "POST",
      body: new Uint8Array(12),
      headers: { "inference-header-content-length": "0" },
    });
    await expectError(raw, 501, /raw binary requests/);
  });
});

describe("malformed JSON requests: 400, nothing reaches the core", () => {
  const cases: [string, unknown, RegExp][] = [
    ["not JSON", "{nope", /failed to parse the inference request JSON/],
    ["an empty body", "", /failed to parse/],
    ["an array", "[]", /the request must be a JSON object, not an array/],
    ["no inputs", "{}", /'inputs' must be a JSON array, not missing/],
    ["inputs not an array", { inputs: {} }, /'inputs' must be a JSON array/],
    ["an input not an object", { inputs: [3] }, /input 0 must be a JSON object/],
    ["an input without a name", { inputs: [{ datatype: "INT32" }] }, /name of input 0/],
    [
      "an unknown datatype",
      { inputs: [{ name: "INPUT0", datatype: "INT33", shape: [1], data: [1] }] },
      /invalid datatype "INT33"/,
    ],
    ["no shape", { inputs: [{ name: "INPUT0", datatype: "INT32", data: [1] }] }, /'shape' array/],
    ["a negative dimension", int32Input([1], [-1]), /invalid dimension -1/],
    ["a fractional dimension", int32Input([1], [1.5]), /invalid dimension 1.5/],
    ["a string dimension", int32Input([1], ["1"]), /invalid dimension "1"/],
    ["too few elements", int32Input([1, 2]), /holds 3 elements, 'data' has 2/],
    ["too many elements", int32Input([1, 2, 3, 4]), /holds 3 elements, 'data' has 4/],
    ["a huge declared shape", int32Input([1], [1, 1e12]), /holds 1000000000000 elements/],
    ["a shape past 2^53", int32Input([1], [1e9, 1e9]), /more than 2\^53 elements/],
    ["a string in INT32", int32Input(["x", 2, 3]), /element 0 of 'data' is "x", not an INT32/],
    ["a fraction in INT32", int32Input([1, 2.5, 3]), /element 1 of 'data' is 2.5, not an INT32/],
    ["INT32 out of range", int32Input([1, 2, 2 ** 31]), /element 2 .* not an INT32/],
    [
      "UINT8 out of range",
      { inputs: [{ name: "INPUT0", datatype: "UINT8", shape: [1, 1], data: [256] }] },
      /element 0 of 'data' is 256, not a UINT8 \(an integer in \[0, 255\]\)/,
    ],
    [
      "a number in BOOL",
      { inputs: [{ name: "INPUT0", datatype: "BOOL", shape: [1, 1], data: [1] }] },
      /not a boolean/,
    ],
    [
      "a number in BYTES",
      { inputs: [{ name: "INPUT0", datatype: "BYTES", shape: [1, 1], data: [1] }] },
      /not a string/,
    ],
    [
      "FP16 as JSON",
      { inputs: [{ name: "INPUT0", datatype: "FP16", shape: [1, 1], data: [1] }] },
      /FP16 data cannot be sent as JSON/,
    ],
    [
      "both data and binary_data_size",
      {
        inputs: [{
          name: "INPUT0",
          datatype: "INT32",
          shape: [1, 1],
          data: [1],
          parameters: { binary_data_size: 4 },
        }],
      },
      /exactly one of 'data', 'binary_data_size' .* gives 'data' and 'binary_data_size'/,
    ],
    [
      "neither data nor binary_data_size",
      { inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, 1] }] },
      /exactly one of .* gives none/,
    ],
    [
      "nesting deeper than 100",
      int32Input(JSON.parse("[".repeat(101) + "1" + "]".repeat(101)), [1]),
      /nests deeper than 100 levels/,
    ],
    [
      "JSON nested 200,000 levels deep",
      `{"inputs":[{"name":"INPUT0","datatype":"INT32","shape":[1],"data":${"[".repeat(200_000)}1${
        "]".repeat(200_000)
      }}]}`,
      /nests deeper than 100 levels|failed to parse/,
    ],
    [
      "JSON nested 200,000 levels deep, with a 64-bit integer (the exact parser)",
      `{"inputs":[{"name":"INPUT0","datatype":"INT64","shape":[1],"data":${
        "[".repeat(200_000)
      }${"1234567890123456789"}${"]".repeat(200_000)}}]}`,
      /nests deeper than 100 levels|failed to parse/,
    ],
    ["an id that is not a string", { id: 5, ...int32Input([1, 2, 3]) }, /'id' must be a string/],
    [
      "sequence_start not a boolean",
      { parameters: { sequence_start: "yes" }, ...int32Input([1, 2, 3]) },
      /parameter 'sequence_start' must be a boolean/,
    ],
    [
      "a reserved parameter",
      { parameters: { triton_enable_x: true }, ...int32Input([1, 2, 3]) },
      /reserved for Triton/,
    ],
    [
      "a parameter of no parameter type",
      { parameters: { custom: { a: 1 } }, ...int32Input([1, 2, 3]) },
      /parameter 'custom' must be a string, number or boolean, not an object/,
    ],
    ["outputs not an array", { ...int32Input([1, 2, 3]), outputs: {} }, /'outputs' must be/],
    [
      "binary_data not a boolean",
      { ...int32Input([1, 2, 3]), outputs: [{ name: "OUTPUT0", parameters: { binary_data: 1 } }] },
      /binary_data must be a boolean/,
    ],
    [
      "a NUL in an input name (it would end the C string early)",
      { inputs: [{ name: "INPUT0\u0000x", datatype: "INT32", shape: [1, 1], data: [1] }] },
      /the name of input 0 must not contain a NUL character/,
    ],
    [
      "a NUL in the request id",
      { id: "a\u0000b", ...int32Input([1, 2, 3]) },
      /'id' must not contain a NUL character/,
    ],
    [
      "a NUL in a parameter key",
      { parameters: { "k\u0000": 1 }, ...int32Input([1, 2, 3]) },
      /a parameter key must not contain a NUL character/,
    ],
    [
      "a NUL in a string parameter",
      { parameters: { k: "v\u0000w" }, ...int32Input([1, 2, 3]) },
      /parameter 'k' must not contain a NUL character/,
    ],
    [
      "an input given twice",
      {
        inputs: [
          { name: "INPUT0", datatype: "INT32", shape: [1, 1], data: [1] },
          { name: "INPUT0", datatype: "INT32", shape: [1, 1], data: [2] },
        ],
      },
      /input 'INPUT0' is given twice/,
    ],
  ];
  for (const [name, body, pattern] of cases) {
    test(name, async () => {
      await expectError(
        await postJson(`${s.url}/v2/models/identity_int32/infer`, body),
        400,
        pattern,
      );
    });
  }

  test("an FP16 output asked for as JSON: 400", async () => {
    await expectError(
      await postBinary(`${s.url}/v2/models/identity_fp16/infer`, {
        inputs: [{
          name: "INPUT0",
          datatype: "FP16",
          shape: [1, 1],
          parameters: { binary_data_size: 2 },
        }],
      }, [new Uint8Array([0, 0x3c])]),
      400,
      /FP16 data cannot be sent as JSON; ask for it as binary_data/,
    );
  });

  test("nothing was left in flight or alive", async () => {
    await settled(s);
  });
});

describe("malformed binary requests: 400", () => {
  const header = (size: number, dtype = "FP32", shape = [16]) => ({
    inputs: [{ name: "INPUT0", datatype: dtype, shape, parameters: { binary_data_size: size } }],
  });
  const url = () => `${s.url}/v2/models/identity_fp32/infer`;

  test("truncated binary data", async () => {
    await expectError(
      await postBinary(url(), header(64, "FP32", [1, 16]), [new Uint8Array(10)]),
      400,
      /binary_data_size 64, but only 10 bytes of binary data remain/,
    );
  });

  test("a binary size that does not fit the shape", async () => {
    await expectError(
      await postBinary(url(), header(60, "FP32", [1, 16]), [new Uint8Array(60)]),
      400,
      /FP32 shape \[1, 16\] needs 64 bytes, binary_data_size is 60/,
    );
  });

  test("bytes no input claims", async () => {
    await expectError(
      await postBinary(url(), header(64, "FP32", [1, 16]), [new Uint8Array(70)]),
      400,
      /6 bytes after the JSON header are not claimed/,
    );
  });

  test("a huge declared binary_data_size", async () => {
    await expectError(
      await postBinary(url(), header(1e15, "FP32", [1, 16]), [new Uint8Array(64)]),
      400,
      /binary_data_size 1000000000000000, but only 64 bytes/,
    );
  });

  test("malformed BYTES: a length prefix past the end", async () => {
    await expectError(
      await postBinary(
        `${s.url}/v2/models/identity_bytes/infer`,
        header(7, "BYTES", [1, 1]),
        [new Uint8Array([100, 0, 0, 0, 1, 2, 3])],
      ),
      400,
      /claims 100 bytes but only 3 remain/,
    );
  });

  test("wrong Inference-Header-Content-Length: past the body, not a number, cutting the JSON", async () => {
    const { body, headerLength } = binaryBody(header(64, "FP32", [1, 16]), [new Uint8Array(64)]);
    const post = (value: string) =>
      fetch(url(), {
        method: "POST",
        body,
        headers: { "inference-header-content-length": value },
      });
    await expectError(await post(String(body.byteLength + 1)), 400, /has only \d+ bytes/);
    await expectError(await post("abc"), 400, /invalid Inference-Header-Content-Length 'abc'/);
    await expectError(await post("-5"), 400, /invalid Inference-Header-Content-Length/);
    await expectError(await post(String(headerLength - 3)), 400, /failed to parse/);
    await expectError(await post(String(headerLength + 3)), 400, /failed to parse/);
  });

  test("nothing was left in flight or alive", async () => {
    await settled(s);
  });
});

describe("body size cap: 413 before the body is read", () => {
  test("a declared Content-Length over the cap", async () => {
    const port = guarded.port;
    const { text } = await rawExchange(port, [
      "POST /v2/models/identity_int32/infer HTTP/1.1\r\nHost: x\r\n" +
      'Content-Type: application/json\r\nContent-Length: 10737418240\r\n\r\n{"inputs":',
    ], { timeoutMs: 3000, until: /maxRequestBytes\)"\}/ });
    assert.deepEqual(statusCodes(text), [413], text);
    assert.match(text, /request body of 10737418240 bytes exceeds the limit of 1048576 bytes/);
  });

  test("a chunked body that grows past the cap", async () => {
    const chunk = "x".repeat(64 * 1024);
    const parts = [
      "POST /v2/models/identity_int32/infer HTTP/1.1\r\nHost: x\r\n" +
      "Transfer-Encoding: chunked\r\n\r\n",
    ];
    for (let i = 0; i < 20; i++) parts.push(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    parts.push("0\r\n\r\n");
    const { text } = await rawExchange(guarded.port, parts, {
      timeoutMs: 3000,
      until: /maxRequestBytes\)"\}/,
    });
    assert.deepEqual(statusCodes(text).slice(0, 1), [413], text.slice(0, 300));
    assert.match(text, /exceeds the limit of 1048576 bytes/);
  });

  test("under the cap is served", async () => {
    const r = await postJson(
      `${guarded.url}/v2/models/identity_int32/infer`,
      int32Input([1, 2, 3]),
    );
    assert.equal(r.status, 200);
    assert.deepEqual((await r.json()).outputs[0].data, [1, 2, 3]);
  });

  test("JSON over maxJsonBytes is 413 naming it; binary data past the header only counts against maxRequestBytes", async () => {
    const JSON_CAP = 256;
    const handler = kserveHandler(s.server, { maxJsonBytes: JSON_CAP, maxRequestBytes: 1 << 20 });
    const url = "http://x/v2/models/identity_uint8/infer";
    const data = new Uint8Array(4096).map((_, i) => (i * 7 + 3) & 0xff);
    const header = new TextEncoder().encode(JSON.stringify({
      inputs: [{
        name: "INPUT0",
        datatype: "UINT8",
        shape: [1, data.length],
        parameters: { binary_data_size: data.length },
      }],
      outputs: [{ name: "OUTPUT0", parameters: { binary_data: true } }],
    }));
    assert.ok(header.length <= JSON_CAP && header.length + data.length > JSON_CAP);
    const body = new Uint8Array(header.length + data.length);
    body.set(header);
    body.set(data, header.length);
    const binary = (headerLength: number, bytes: Uint8Array<ArrayBuffer>) =>
      handler(
        new Request(url, {
          method: "POST",
          headers: { "inference-header-content-length": String(headerLength) },
          body: bytes,
        }),
      );
    const ok = await binary(header.length, body);
    assert.equal(ok.status, 200, await ok.clone().text());
    const echoed = new Uint8Array(await ok.arrayBuffer());
    const at = Number(ok.headers.get("inference-header-content-length"));
    assert.equal(Buffer.compare(echoed.subarray(at), data), 0);
    await expectError(
      await binary(JSON_CAP + 1, new Uint8Array(JSON_CAP + 1)),
      413,
      /JSON header \(Inference-Header-Content-Length\) of 257 bytes exceeds the limit of 256 bytes \(maxJsonBytes\)/,
    );
    const json = JSON.stringify(int32Input([1, 2, 3])).padEnd(JSON_CAP + 1, " ");
    await expectError(
      await handler(new Request(url, { method: "POST", body: json })),
      413,
      /request body of (257|more than 256) bytes exceeds the limit of 256 bytes \(maxJsonBytes\)/,
    );
    const generate = await handler(
      new Request("http://x/v2/models/identity_int32/generate", { method: "POST", body: json }),
    );
    await expectError(generate, 413, /\(maxJsonBytes\)/);
    // The tighter limit is the one named: a body cap under the JSON cap is maxRequestBytes.
    const tight = kserveHandler(s.server, { maxJsonBytes: 1 << 20, maxRequestBytes: JSON_CAP });
    await expectError(
      await tight(new Request(url, { method: "POST", body: json })),
      413,
      /\(maxRequestBytes\)/,
    );
    assert.throws(
      () => kserveHandler(s.server, { maxJsonBytes: 1.5 }),
      (e: unknown) =>
        e instanceof TritonError && e.code === "INVALID_ARG" && /maxJsonBytes/.test(e.message),
    );
  });

  test("the server is healthy and nothing is left behind", async () => {
    assert.equal((await fetch(`${s.url}/v2/health/ready`)).status, 200);
    await settled(s);
  });
});

describe("restricted APIs", () => {
  test("a restricted category needs its header and value; the rest stays open", async () => {
    const index = (headers: Record<string, string>) =>
      fetch(`${guarded.url}/v2/repository/index`, { method: "POST", headers });
    await expectError(await index({}), 403, /This API is restricted, expecting header 'admin-key'/);
    await expectError(await index({ "admin-key": "wrong" }), 403, /restricted/);
    await expectError(await index({ "admin-key": "s3cret2" }), 403, /restricted/);
    const ok = await index({ "Admin-Key": "s3cret" });
    assert.equal(ok.status, 200);
    assert.ok(Array.isArray(await ok.json()));
    await expectError(await fetch(`${guarded.url}/metrics`), 403, /restricted/);
    assert.equal(
      (await fetch(`${guarded.url}/metrics`, { headers: { "admin-key": "s3cret" } })).status,
      200,
    );
    assert.equal((await fetch(`${guarded.url}/v2/health/ready`)).status, 200);
    await expectError(
      await fetch(`${guarded.url}/v2/repository/models/identity_int8/unload`, { method: "POST" }),
      403,
      /restricted/,
    );
    assert.equal(s.server.model("identity_int8").ready(), true);
  });

  test("infer is restricted like any route, on every path form", async () => {
    const restricted = await serve(s.server, {
      port: 0,
      restrictedApis: { inference: { header: "infer-key", value: "k" } },
    });
    try {
      const body = JSON.stringify(int32Input([1, 2, 3]));
      const infer = (path: string, headers: Record<string, string> = {}) =>
        fetch(`${restricted.url}${path}`, { method: "POST", body, headers });
      await expectError(await infer("/v2/models/identity_int32/infer"), 403, /'infer-key'/);
      await expectError(
        await infer("/v2/models/identity_int32/versions/1/infer"),
        403,
        /restricted/,
      );
      await expectError(await infer("/v2/models/identity_int%33%32/infer"), 403, /restricted/);
      const ok = await infer("/v2/models/identity_int32/infer?x=1", { "infer-key": "k" });
      assert.equal(ok.status, 200, await ok.clone().text());
      assert.deepEqual((await ok.json()).outputs[0].data, [1, 2, 3]);
    } finally {
      await restricted.close();
    }
  });

  test("bad options are INVALID_ARG before anything listens", async () => {
    assert.throws(
      () =>
        kserveHandler(s.server, {
          restrictedApis: { "no-such": { header: "h", value: "v" } } as never,
        }),
      (e: unknown) =>
        e instanceof TritonError && e.code === "INVALID_ARG" && /no-such/.test(e.message),
    );
    assert.throws(
      () => kserveHandler(s.server, { restrictedApis: { health: { header: "", value: "v" } } }),
      (e: unknown) => e instanceof TritonError && e.code === "INVALID_ARG",
    );
    assert.throws(
      () => kserveHandler(s.server, { maxRequestBytes: -1 }),
      (e: unknown) => e instanceof TritonError && e.code === "INVALID_ARG",
    );
    await assert.rejects(
      serve(s.server, { port: 70000 }),
      (e: unknown) => e instanceof TritonError && e.code === "INVALID_ARG",
    );
    await assert.rejects(
      serve(s.server, { port: s.http.port }),
      (e: unknown) =>
        e instanceof TritonError && e.code === "UNAVAILABLE" &&
        new RegExp(`127\\.0\\.0\\.1:${s.http.port}`).test(e.message),
    );
  });
});

describe("framing over a raw socket", () => {
  const inferJson = JSON.stringify(int32Input([7, 8, 9]));
  const inferRequest = (extra = "") =>
    "POST /v2/models/identity_int32/infer HTTP/1.1\r\nHost: x\r\n" +
    `Content-Type: application/json\r\nContent-Length: ${inferJson.length}\r\n${extra}\r\n` +
    inferJson;

  test("pipelined requests on one keep-alive connection are answered in order", {
    // Bun's HTTP server (uWS) closes a connection, answering nothing, when a request arrives
    // pipelined behind one whose response is still pending (oven-sh/bun#32868, #38128).
    skip: "Bun" in globalThis
      ? "Bun closes a connection pipelined behind a pending response"
      : false,
  }, async () => {
    const { text } = await rawExchange(s.http.port, [
      inferRequest() + inferRequest() +
      "GET /v2/health/ready HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ]);
    assert.deepEqual(statusCodes(text), [200, 200, 200], text);
    assert.equal(text.match(/"data":\[7,8,9\]/g)?.length, 2);
  });

  test("a chunked binary body, chunks splitting the JSON header and the data", async () => {
    const values = new Float32Array([1.5, 2.5, -3]);
    const { body, headerLength } = binaryBody({
      inputs: [{
        name: "INPUT0",
        datatype: "FP32",
        shape: [1, 3],
        parameters: { binary_data_size: 12 },
      }],
    }, [new Uint8Array(values.buffer)]);
    const cuts = [0, 7, headerLength - 2, headerLength + 5, body.byteLength];
    const head = "POST /v2/models/identity_fp32/infer HTTP/1.1\r\nHost: x\r\n" +
      `Inference-Header-Content-Length: ${headerLength}\r\nTransfer-Encoding: chunked\r\n` +
      "Connection: close\r\n\r\n";
    const parts: (string | Uint8Array)[] = [head];
    for (let i = 0; i + 1 < cuts.length; i++) {
      const piece = body.subarray(cuts[i], cuts[i + 1]);
      parts.push(`${piece.byteLength.toString(16)}\r\n`, piece, "\r\n");
    }
    parts.push("0\r\n\r\n");
    const { text } = await rawExchange(s.http.port, parts, { pauseMs: 10 });
    assert.deepEqual(statusCodes(text), [200], text);
    assert.match(text, /"datatype":"FP32","shape":\[1,3\],"data":\[1\.5,2\.5,-3\]/);
  });

  test("a body arriving in pieces", async () => {
    const request = inferRequest("Connection: close\r\n");
    const step = Math.ceil(request.length / 5);
    const parts = [0, 1, 2, 3, 4].map((i) => request.slice(i * step, (i + 1) * step));
    const { text } = await rawExchange(s.http.port, parts, { pauseMs: 20 });
    assert.deepEqual(statusCodes(text), [200], text);
    assert.match(text, /"data":\[7,8,9\]/);
  });

  test("a body that ends before its Content-Length: no crash, nothing left behind", async () => {
    const { text } = await rawExchange(s.http.port, [
      "POST /v2/models/identity_int32/infer HTTP/1.1\r\nHost: x\r\n" +
      "Content-Type: application/json\r\nContent-Length: 500\r\n\r\n" + inferJson,
    ], { end: true, timeoutMs: 3000 });
    // The client hung up: whatever the runtime did, no 200 went out.
    assert.ok(!statusCodes(text).includes(200), text);
    assert.equal((await fetch(`${s.url}/v2/health/live`)).status, 200);
    await settled(s);
  });

  test("garbage instead of HTTP: the connection is refused, the server lives on", async () => {
    const { text } = await rawExchange(s.http.port, ["HELLO THERE\r\n\r\n"], { timeoutMs: 3000 });
    assert.ok(!statusCodes(text).includes(200), text);
    assert.equal((await fetch(`${s.url}/v2/health/live`)).status, 200);
  });
});

describe("after the server stops", () => {
  test("health and inference answer UNAVAILABLE (503)", async () => {
    await s.server.stop();
    assert.equal((await fetch(`${s.url}/v2/health/live`)).status, 503);
    assert.equal((await fetch(`${s.url}/v2/health/ready`)).status, 503);
    await expectError(
      await postJson(`${s.url}/v2/models/identity_int32/infer`, int32Input([1, 2, 3])),
      503,
      // The calling thread's words, or a worker's (its attached server: its owner stopped it).
      /server is stopped|server's owner stopped it/,
    );
  });
});
