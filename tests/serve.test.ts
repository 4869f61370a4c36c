/**
 * `serve()`: the KServe v2 HTTP/REST endpoints through `fetch` — health, metadata, config,
 * statistics, JSON and binary round trips for every data type, requested outputs, parameters,
 * generate, the model repository extension and metrics.
 *
 * Run: `deno test -A tests/serve.test.ts`, `bun test tests/serve.test.ts`,
 * `node --test tests/serve.test.ts` (with `TRITONSERVER_LIB` set).
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import { test } from "./support/test.ts";
import { Hono } from "hono";
import { stringify } from "lossless-json";
import { type DataTypeName, TritonError } from "../mod.ts";
import { HTTP_STATUS, kserveHandler } from "../serve.ts";
import {
  parseExact,
  postBinary,
  postJson,
  readInferResponse,
  type Serving,
  settled,
  startServing,
  stopServing,
} from "./support/serve.ts";

let s: Serving;
before(async () => {
  s = await startServing();
});
after(async () => {
  await stopServing(s);
});

/** The status the handler must answer for what `fn` throws through the public API. */
function statusOfApi(fn: () => unknown): number {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof TritonError);
    return HTTP_STATUS[e.code];
  }
  throw new Error("expected the API call to throw");
}

/** What the ready endpoint answers for a model that is not ready: 400, or the status of the
 * error Triton gives (the fake core reports NOT_FOUND for a model it has no version of; the real
 * core answers false). */
function notReadyStatus(name: string, version = -1): number {
  try {
    assert.equal(s.server.model(name, version).ready(), false);
    return 400;
  } catch (e) {
    if (!(e instanceof TritonError)) throw e;
    return HTTP_STATUS[e.code];
  }
}

/** Whether a model is ready (false where Triton has no version of it to ask). */
function modelReady(name: string): boolean {
  try {
    return s.server.model(name).ready();
  } catch {
    return false;
  }
}

/** JSON values for each data type's round trip (64-bit extremes as bigint). */
const JSON_VALUES: Partial<Record<DataTypeName, readonly (number | bigint | boolean | string)[]>> =
  {
    BOOL: [true, false, true],
    UINT8: [0, 255, 7],
    UINT16: [0, 65535, 7],
    UINT32: [0, 4294967295, 7],
    UINT64: [0, 18446744073709551615n, 9007199254740993n],
    INT8: [-128, 127, 0],
    INT16: [-32768, 32767, 1],
    INT32: [-2147483648, 2147483647, 1],
    INT64: [-9223372036854775808n, 9223372036854775807n, -9007199254740993n],
    FP32: [1.5, -0.25, 3.4028234663852886e38],
    FP64: [Math.PI, -1e-300, 1.7976931348623157e308],
    BYTES: ["héllo", "", "a\u0000b", "日本語"],
  };

/** Binary data for each data type's round trip: the bytes Triton reads, as a typed array. */
function binaryValues(dtype: DataTypeName): { bytes: Uint8Array; count: number } {
  const typed = (a: ArrayBufferView & { length: number }) => ({
    bytes: new Uint8Array(a.buffer, a.byteOffset, a.byteLength),
    count: a.length,
  });
  switch (dtype) {
    case "BOOL":
      return typed(new Uint8Array([1, 0, 1, 1]));
    case "UINT8":
      return typed(new Uint8Array([0, 255, 1, 2]));
    case "UINT16":
      return typed(new Uint16Array([0, 65535, 1, 2]));
    case "UINT32":
      return typed(new Uint32Array([0, 4294967295, 1, 2]));
    case "UINT64":
      return typed(new BigUint64Array([0n, 2n ** 64n - 1n, 1n, 2n]));
    case "INT8":
      return typed(new Int8Array([-128, 127, 0, -1]));
    case "INT16":
      return typed(new Int16Array([-32768, 32767, 0, -1]));
    case "INT32":
      return typed(new Int32Array([-2147483648, 2147483647, 0, -1]));
    case "INT64":
      return typed(new BigInt64Array([-(2n ** 63n), 2n ** 63n - 1n, 0n, -1n]));
    case "FP16":
      return typed(new Uint16Array([0x3c00, 0xc000, 0x7bff, 0x7e00])); // 1, -2, max, NaN
    case "BF16":
      return typed(new Uint16Array([0x3f80, 0xc000, 0x7f7f, 0x7fc0])); // 1, -2, max, NaN
    case "FP32":
      return typed(new Float32Array([1.5, -0.25, NaN, -Infinity]));
    case "FP64":
      return typed(new Float64Array([Math.E, -0, NaN, Infinity]));
    case "BYTES": {
      // Length-prefixed elements, one of them not UTF-8.
      const elements = [[0x68, 0x69], [], [0xff, 0x00, 0xfe]];
      const out: number[] = [];
      for (const e of elements) out.push(e.length, 0, 0, 0, ...e);
      return { bytes: new Uint8Array(out), count: elements.length };
    }
  }
}

const ALL_TYPES: readonly DataTypeName[] = [
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
];

describe("health and metadata", () => {
  test("live and ready: 200 with an empty body", async () => {
    for (const path of ["/v2/health/live", "/v2/health/ready"]) {
      const r = await fetch(s.url + path);
      assert.equal(r.status, 200, path);
      assert.equal(await r.text(), "");
    }
  });

  test("server metadata: the core's, with the extensions served here", async () => {
    const r = await fetch(`${s.url}/v2`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "application/json");
    const json = await r.json();
    const core = s.server.metadata();
    assert.equal(json.name, core.name);
    assert.equal(json.version, core.version);
    assert.ok(json.extensions.includes("binary_tensor_data"));
    assert.ok(json.extensions.includes("model_repository"));
    assert.ok(!json.extensions.includes("system_shared_memory"));
    assert.ok(json.extensions.includes("classification"));
    assert.deepEqual(
      json.extensions,
      core.extensions.filter((e) => json.extensions.includes(e)),
      "a subset of the core's, in its order",
    );
  });

  test("model metadata, with and without a version, equals the API's", async () => {
    const expected = s.server.model("add_sub").metadata();
    for (const path of ["/v2/models/add_sub", "/v2/models/add_sub/versions/1"]) {
      const r = await fetch(s.url + path);
      assert.equal(r.status, 200, path);
      assert.deepEqual(await r.json(), JSON.parse(JSON.stringify(expected)));
    }
  });

  test("model ready: 200; an unknown model or version: Triton's error status", async () => {
    assert.equal((await fetch(`${s.url}/v2/models/identity_int32/ready`)).status, 200);
    assert.equal((await fetch(`${s.url}/v2/models/identity_int32/versions/1/ready`)).status, 200);
    const unknown = await fetch(`${s.url}/v2/models/no_such_model/ready`);
    assert.equal(unknown.status, notReadyStatus("no_such_model"));
    assert.match((await unknown.json()).error, /no_such_model|not ready/);
    const r = await fetch(`${s.url}/v2/models/identity_int32/versions/7/ready`);
    assert.equal(r.status, notReadyStatus("identity_int32", 7));
    assert.equal(typeof (await r.json()).error, "string");
  });

  test("unknown model metadata: Triton's error code as the status, its message", async () => {
    const r = await fetch(`${s.url}/v2/models/no_such_model`);
    assert.equal(r.status, statusOfApi(() => s.server.model("no_such_model").metadata()));
    assert.equal(r.headers.get("content-type"), "application/json");
    assert.match((await r.json()).error, /no_such_model/);
  });

  test("model config equals the API's", async () => {
    const r = await fetch(`${s.url}/v2/models/identity_fp32/config`);
    assert.equal(r.status, 200);
    const json = await r.json();
    assert.deepEqual(json, JSON.parse(JSON.stringify(s.server.model("identity_fp32").config())));
    assert.equal(json.max_batch_size, 8);
  });

  test("statistics: per model (all versions, or one) and for every model", async () => {
    const before = s.server.model("identity_int32").statistics().inference_stats.success.count;
    for (let i = 0; i < 3; i++) {
      const r = await postJson(`${s.url}/v2/models/identity_int32/infer`, {
        inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, 1], data: [i] }],
      });
      assert.equal(r.status, 200);
      await r.body?.cancel();
    }
    await settled(s);
    const one = await (await fetch(`${s.url}/v2/models/identity_int32/stats`)).json();
    assert.equal(one.model_stats.length, 1);
    assert.equal(one.model_stats[0].name, "identity_int32");
    assert.equal(one.model_stats[0].inference_stats.success.count, before + 3);
    const v1 = await (await fetch(`${s.url}/v2/models/identity_int32/versions/1/stats`)).json();
    assert.equal(v1.model_stats[0].version, "1");
    const all = await (await fetch(`${s.url}/v2/models/stats`)).json();
    assert.ok(all.model_stats.some((m: { name: string }) => m.name === "identity_int32"));
    assert.ok(all.model_stats.length >= 10);
  });

  test("metrics: Prometheus text with the inference counters", async () => {
    const r = await fetch(`${s.url}/metrics`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "text/plain; charset=utf-8");
    const text = await r.text();
    assert.match(text, /# TYPE nv_inference_request_success counter/);
    assert.match(text, /nv_inference_request_success\{model="identity_int32",version="1"\} \d+/);
  });
});

describe("infer: JSON tensors", () => {
  for (const [dtype, values] of Object.entries(JSON_VALUES) as [DataTypeName, never[]][]) {
    test(`${dtype} round trip`, async () => {
      const model = `identity_${dtype.toLowerCase()}`;
      const body = stringify({
        id: `json-${dtype}`,
        inputs: [{ name: "INPUT0", datatype: dtype, shape: [1, values.length], data: values }],
      })!;
      const r = await postJson(`${s.url}/v2/models/${model}/infer`, body);
      const read = await readInferResponse(r);
      assert.equal(read.status, 200, stringify(read.json));
      assert.equal(read.contentType, "application/json");
      assert.equal(read.json.id, `json-${dtype}`);
      assert.equal(read.json.model_name, model);
      assert.equal(read.json.model_version, "1");
      const [out] = read.json.outputs as {
        name: string;
        datatype: string;
        shape: number[];
        data: unknown[];
      }[];
      assert.equal(out.name, "OUTPUT0");
      assert.equal(out.datatype, dtype);
      assert.deepEqual(out.shape, [1, values.length]);
      const expected = dtype === "FP32"
        ? Array.from(Float32Array.from(values as number[]))
        : values;
      assert.deepEqual(out.data.map(String), expected.map(String));
    });
  }

  test("nested data is read row-major", async () => {
    const r = await postJson(`${s.url}/v2/models/identity_int32/infer`, {
      inputs: [{ name: "INPUT0", datatype: "INT32", shape: [2, 3], data: [[1, 2, 3], [4, 5, 6]] }],
    });
    const json = await r.json();
    assert.equal(r.status, 200);
    assert.deepEqual(json.outputs[0].shape, [2, 3]);
    assert.deepEqual(json.outputs[0].data, [1, 2, 3, 4, 5, 6]);
  });

  test("add_sub: two inputs, two outputs, requested outputs only", async () => {
    const a = Array.from({ length: 16 }, (_, i) => i);
    const b = Array.from({ length: 16 }, () => 1);
    const inputs = [
      { name: "INPUT0", datatype: "FP32", shape: [16], data: a },
      { name: "INPUT1", datatype: "FP32", shape: [16], data: b },
    ];
    const both = await (await postJson(`${s.url}/v2/models/add_sub/infer`, { inputs })).json();
    const byName = Object.fromEntries(
      both.outputs.map((o: { name: string; data: number[] }) => [o.name, o.data]),
    );
    assert.deepEqual(byName.OUTPUT0, a.map((x) => x + 1));
    assert.deepEqual(byName.OUTPUT1, a.map((x) => x - 1));
    const one = await (await postJson(`${s.url}/v2/models/add_sub/infer`, {
      inputs,
      outputs: [{ name: "OUTPUT1" }],
    })).json();
    assert.deepEqual(one.outputs.map((o: { name: string }) => o.name), ["OUTPUT1"]);
  });

  test("response parameters come back typed", async () => {
    const r = await postJson(`${s.url}/v2/models/identity_int32/infer`, {
      inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, 1], data: [5] }],
    });
    const json = await r.json();
    const expected = (await collectParameters()) as Record<string, unknown>;
    assert.deepEqual(json.parameters ?? {}, expected);
  });

  test("request parameters reach the model; Triton's own ones are read, not forwarded", async () => {
    const r = await postJson(`${s.url}/v2/models/identity_int32/infer`, {
      id: "with-params",
      parameters: { priority: 0, timeout: 0, custom_s: "x", custom_i: 3, custom_b: true },
      inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, 2], data: [1, 2] }],
    });
    assert.equal(r.status, 200);
    assert.equal((await r.json()).id, "with-params");
  });
});

/** The parameters the identity backend attaches, read through the API. */
async function collectParameters(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for await (
    const r of s.server.model("identity_int32").infer({
      inputs: { INPUT0: { dtype: "INT32", shape: [1, 1], data: new Int32Array([5]) } },
    })
  ) {
    for (const [k, v] of Object.entries(r.parameters)) {
      out[k] = typeof v === "bigint" ? Number(v) : v;
    }
    r.dispose();
  }
  return out;
}

describe("infer: binary tensors", () => {
  for (const dtype of ALL_TYPES) {
    test(`${dtype} round trip, binary in and out`, async () => {
      const model = `identity_${dtype.toLowerCase()}`;
      const { bytes, count } = binaryValues(dtype);
      const r = await postBinary(`${s.url}/v2/models/${model}/infer`, {
        inputs: [{
          name: "INPUT0",
          datatype: dtype,
          shape: [1, count],
          parameters: { binary_data_size: bytes.byteLength },
        }],
        outputs: [{ name: "OUTPUT0", parameters: { binary_data: true } }],
      }, [bytes]);
      const read = await readInferResponse(r);
      assert.equal(read.status, 200, stringify(read.json));
      assert.equal(read.contentType, "application/octet-stream");
      const [out] = read.json.outputs as {
        datatype: string;
        shape: number[];
        parameters: { binary_data_size: number };
      }[];
      assert.equal(out.datatype, dtype);
      assert.deepEqual(out.shape, [1, count]);
      assert.equal(out.parameters.binary_data_size, bytes.byteLength);
      assert.deepEqual(read.binary.get("OUTPUT0"), bytes);
    });
  }

  test("binary_data_output: every output binary unless one says otherwise", async () => {
    const a = new Float32Array(16).fill(2);
    const b = new Float32Array(16).fill(0.5);
    const blob = (x: Float32Array) => new Uint8Array(x.buffer);
    const header = (outputs?: unknown) => ({
      parameters: { binary_data_output: true },
      inputs: [
        { name: "INPUT0", datatype: "FP32", shape: [16], parameters: { binary_data_size: 64 } },
        { name: "INPUT1", datatype: "FP32", shape: [16], parameters: { binary_data_size: 64 } },
      ],
      ...(outputs ? { outputs } : {}),
    });
    const all = await readInferResponse(
      await postBinary(`${s.url}/v2/models/add_sub/infer`, header(), [blob(a), blob(b)]),
    );
    assert.equal(all.status, 200);
    assert.deepEqual(
      new Float32Array(all.binary.get("OUTPUT0")!.slice().buffer),
      new Float32Array(16).fill(2.5),
    );
    assert.deepEqual(
      new Float32Array(all.binary.get("OUTPUT1")!.slice().buffer),
      new Float32Array(16).fill(1.5),
    );
    const mixed = await readInferResponse(
      await postBinary(
        `${s.url}/v2/models/add_sub/infer`,
        header([{ name: "OUTPUT0", parameters: { binary_data: false } }, { name: "OUTPUT1" }]),
        [blob(a), blob(b)],
      ),
    );
    const outs = mixed.json.outputs as { name: string; data?: number[] }[];
    assert.deepEqual(outs.find((o) => o.name === "OUTPUT0")!.data, new Array(16).fill(2.5));
    assert.ok(mixed.binary.has("OUTPUT1") && !mixed.binary.has("OUTPUT0"));
  });

  test("JSON and binary inputs mixed in one request", async () => {
    const b = new Float32Array(16).fill(1);
    const r = await readInferResponse(
      await postBinary(`${s.url}/v2/models/add_sub/infer`, {
        inputs: [
          { name: "INPUT0", datatype: "FP32", shape: [16], data: new Array(16).fill(3) },
          { name: "INPUT1", datatype: "FP32", shape: [16], parameters: { binary_data_size: 64 } },
        ],
      }, [new Uint8Array(b.buffer)]),
    );
    assert.equal(r.status, 200);
    const outs = r.json.outputs as { name: string; data: number[] }[];
    assert.deepEqual(outs.find((o) => o.name === "OUTPUT0")!.data, new Array(16).fill(4));
  });

  test("a zero-element tensor round trips", async () => {
    const r = await readInferResponse(
      await postBinary(`${s.url}/v2/models/identity_int32/infer`, {
        inputs: [{
          name: "INPUT0",
          datatype: "INT32",
          shape: [1, 0],
          parameters: { binary_data_size: 0 },
        }],
        outputs: [{ name: "OUTPUT0", parameters: { binary_data: true } }],
      }, []),
    );
    assert.equal(r.status, 200, stringify(r.json));
    assert.deepEqual((r.json.outputs as { shape: number[] }[])[0].shape, [1, 0]);
    await settled(s);
  });
});

describe("generate", () => {
  test("generate: inputs by name, shaped by the model, a single element unwrapped", async () => {
    const r = await postJson(`${s.url}/v2/models/identity_bytes/generate`, {
      id: "g1",
      INPUT0: ["hello", "world"],
    });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "application/json");
    const json = await r.json();
    assert.equal(json.id, "g1");
    assert.equal(json.model_name, "identity_bytes");
    assert.equal(json.model_version, "1");
    assert.deepEqual(json.OUTPUT0, ["hello", "world"]);
    const one = await (await postJson(`${s.url}/v2/models/identity_bytes/generate`, {
      parameters: { INPUT0: "solo", custom: 1 },
    })).json();
    assert.equal(one.OUTPUT0, "solo");
  });

  test("generate on a model sending many responses: an error, nothing left behind", async () => {
    const r = await postJson(`${s.url}/v2/models/sleep_stream/generate`, {
      COUNT: 3,
      DELAY_MS: 1,
    });
    assert.equal(r.status, 500);
    assert.match((await r.json()).error, /exactly one response; use generate_stream/);
    await settled(s);
  });
});

describe("model repository extension", () => {
  test("index lists every model with string versions; ready: true only the ready ones", async () => {
    const r = await fetch(`${s.url}/v2/repository/index`, { method: "POST" });
    assert.equal(r.status, 200);
    const index = await r.json() as { name: string; version?: string; state?: string }[];
    const entry = index.find((m) => m.name === "identity_int8");
    assert.deepEqual(entry, { name: "identity_int8", version: "1", state: "READY" });
    assert.equal(index.length, s.server.models().length);
    const ready = await (await postJson(`${s.url}/v2/repository/index`, { ready: true })).json();
    assert.equal(ready.length, s.server.models({ readyOnly: true }).length);
  });

  test("unload, then load with a config override", async () => {
    const unload = await postJson(`${s.url}/v2/repository/models/identity_int8/unload`, {
      parameters: { unload_dependents: false },
    });
    assert.equal(unload.status, 200);
    assert.equal(await unload.text(), "");
    // Triton unloads in the background: wait until the index no longer says READY or UNLOADING.
    const unloading = () =>
      ["READY", "UNLOADING"].includes(
        s.server.models().find((m) => m.name === "identity_int8")?.state ?? "",
      );
    for (let i = 0; i < 500 && unloading(); i++) await new Promise((r) => setTimeout(r, 10));
    const notReady = await fetch(`${s.url}/v2/models/identity_int8/ready`);
    assert.equal(notReady.status, notReadyStatus("identity_int8"));
    assert.equal(typeof (await notReady.json()).error, "string");
    const index = await (await fetch(`${s.url}/v2/repository/index`, { method: "POST" })).json();
    assert.equal(
      index.find((m: { name: string }) => m.name === "identity_int8").state,
      "UNAVAILABLE",
    );
    const override = {
      name: "identity_int8",
      backend: "identity",
      max_batch_size: 4,
      input: [{ name: "INPUT0", data_type: "TYPE_INT8", dims: [-1] }],
      output: [{ name: "OUTPUT0", data_type: "TYPE_INT8", dims: [-1] }],
    };
    const load = await postJson(`${s.url}/v2/repository/models/identity_int8/load`, {
      parameters: { config: JSON.stringify(override) },
    });
    assert.equal(load.status, 200, await load.clone().text());
    const loaded = await (await fetch(`${s.url}/v2/models/identity_int8/config`)).json();
    assert.equal(loaded.max_batch_size, 4);
    // Back to the repository's own configuration (a load without one keeps the override).
    for (const action of ["unload", "load"]) {
      const r = await fetch(`${s.url}/v2/repository/models/identity_int8/${action}`, {
        method: "POST",
      });
      assert.equal(r.status, 200);
      if (action === "unload") {
        await s.server.unloadModel("identity_int8", { waitUntilUnloaded: true });
      }
    }
    assert.equal(s.server.model("identity_int8").config().max_batch_size, 8);
  });

  test("load errors: Triton's (unknown model), and malformed parameters as 400", async () => {
    const unknown = await fetch(`${s.url}/v2/repository/models/no_such_model/load`, {
      method: "POST",
    });
    assert.ok(unknown.status >= 400, `status ${unknown.status}`);
    assert.equal(typeof (await unknown.json()).error, "string");
    for (
      const [params, pattern] of [
        [{ config: "{not json" }, /'config' is not JSON/],
        [{ config: 7 }, /'config' must be a string/],
        [{ config: "{}", "file:1/x": "***" }, /not valid base64/],
        [{ other: "x" }, /unknown load parameter 'other'/],
      ] as const
    ) {
      const r = await postJson(`${s.url}/v2/repository/models/identity_int8/load`, {
        parameters: params,
      });
      assert.equal(r.status, 400, JSON.stringify(params));
      assert.match((await r.json()).error, pattern);
    }
    const repo = await fetch(`${s.url}/v2/repository/some_repo/models/identity_int8/unload`, {
      method: "POST",
    });
    assert.equal(repo.status, 501);
    assert.equal(modelReady("identity_int8"), true);
  });
});

describe("the handler alone", () => {
  test("mounted in a Hono app next to its own routes", async () => {
    const app = new Hono();
    app.get("/hello", (c) => c.text("hi"));
    app.mount("/", kserveHandler(s.server));
    assert.equal(await (await app.fetch(new Request("http://x/hello"))).text(), "hi");
    const r = await app.fetch(new Request("http://x/v2/models/identity_int32/ready"));
    assert.equal(r.status, 200);
    const meta = await app.fetch(new Request("http://x/v2/models/identity_int32"));
    assert.equal((await meta.json()).name, "identity_int32");
  });

  test("kserveHandler answers Requests without a listening server, as serve() does", async () => {
    const request = {
      inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, 2], data: [4, 5] }],
    };
    const handler = kserveHandler(s.server);
    const direct = await handler(
      new Request("http://in-process/v2/models/identity_int32/infer", {
        method: "POST",
        body: JSON.stringify(request),
      }),
    );
    assert.equal(direct.status, 200);
    const overHttp = await postJson(`${s.url}/v2/models/identity_int32/infer`, request);
    const answer = parseExact(await direct.text()) as { outputs: { data: number[] }[] };
    assert.deepEqual(answer, parseExact(await overHttp.text()));
    assert.deepEqual(answer.outputs[0].data, [4, 5]);
    await settled(s);
  });
});
