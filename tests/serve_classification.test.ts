/**
 * The classification extension as tritonserver serves it, over HTTP (JSON and binary data) and
 * gRPC (ModelInfer and ModelStreamInfer, on both transports): a requested output with
 * `classification: k` comes back as the top k of each batch row, BYTES `"value:index[:label]"`.
 * Values, labels (labels_fp32 batches, labels_int32 does not and has an empty label line), k past
 * the class count, batch rows, every data type tritonserver classifies, ties ranked as
 * tritonserver's std::sort ranks them, the errors; and `InferResponse.classificationLabel`.
 */
import assert from "node:assert/strict";
import { after, before } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { test } from "./support/test.ts";
import { TritonError } from "../mod.ts";
import { type GrpcService, type GrpcTransportName, serveGrpc } from "../grpc.ts";
import { serviceDefinitions } from "../serving/kserve/grpc/definitions.ts";
import { classOrder } from "../serving/kserve/class_order.ts";
import { fixed6 } from "../serving/kserve/classification.ts";
import type { Msg } from "./support/grpc_requests.ts";
import { GRPC_SKIP, startServer } from "./support/env.ts";
import { identityConfig, tempRepo } from "./support/temp_repo.ts";
import {
  postBinary,
  readInferResponse,
  type Serving,
  settled,
  startServing,
  stopServing,
} from "./support/serve.ts";

/** gRPC's transports: none where the gRPC half does not run (GRPC_SKIP), HTTP's still does. */
const TRANSPORTS: readonly GrpcTransportName[] = GRPC_SKIP ? [] : ["grpc-js", "http2"];
const definitions = serviceDefinitions();
const Client = grpc.makeGenericClientConstructor(definitions.inference, "GRPCInferenceService");
type GrpcClient = grpc.Client & Record<string, (...args: unknown[]) => unknown>;

let s: Serving;
const services = new Map<GrpcTransportName, { service: GrpcService; client: GrpcClient }>();

before(async () => {
  s = await startServing();
  for (const transport of TRANSPORTS) {
    const service = await serveGrpc(s.server, { port: 0, transport });
    const client = new Client(service.address, grpc.credentials.createInsecure()) as GrpcClient;
    services.set(transport, { service, client });
  }
});
after(async () => {
  for (const { service, client } of services.values()) {
    client.close();
    await service.close();
  }
  await stopServing(s);
});

/** One input tensor: its data type, shape and bytes. */
interface Input {
  readonly datatype: string;
  readonly shape: readonly number[];
  readonly bytes: Uint8Array;
}

const bytesOf = (view: ArrayBufferView) =>
  new Uint8Array(view.buffer, view.byteOffset, view.byteLength).slice();
const fp32 = (shape: number[], values: number[]): Input => ({
  datatype: "FP32",
  shape,
  bytes: bytesOf(new Float32Array(values)),
});
const int32 = (shape: number[], values: number[]): Input => ({
  datatype: "INT32",
  shape,
  bytes: bytesOf(new Int32Array(values)),
});

/** A classified output as a client reads it. */
interface Classified {
  readonly datatype: string;
  readonly shape: readonly number[];
  readonly strings: readonly string[];
}

const decoder = new TextDecoder();

/** The elements of a BYTES tensor's serialized form (a 4-byte little-endian length before each). */
function deserialize(bytes: Uint8Array): string[] {
  const out: string[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at < bytes.byteLength;) {
    const n = view.getUint32(at, true);
    out.push(decoder.decode(bytes.subarray(at + 4, at + 4 + n)));
    at += 4 + n;
  }
  return out;
}

/** An error as each protocol reports it. */
class Failed extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

const HTTP_CODE: Record<number, string> = { 400: "INVALID_ARG", 404: "NOT_FOUND", 500: "INTERNAL" };
const GRPC_CODE: Record<number, string> = {
  [grpc.status.INVALID_ARGUMENT]: "INVALID_ARG",
  [grpc.status.NOT_FOUND]: "NOT_FOUND",
  [grpc.status.INTERNAL]: "INTERNAL",
};

/** Over HTTP, the output's data as JSON (`binary` false) or binary data. */
async function overHttp(model: string, input: Input, k: unknown, binary: boolean) {
  const r = await postBinary(`${s.url}/v2/models/${model}/infer`, {
    inputs: [{
      name: "INPUT0",
      datatype: input.datatype,
      shape: input.shape,
      parameters: { binary_data_size: input.bytes.byteLength },
    }],
    outputs: [{ name: "OUTPUT0", parameters: { classification: k, binary_data: binary } }],
  }, [input.bytes]);
  if (r.status !== 200) {
    const { error } = await r.json();
    throw new Failed(HTTP_CODE[r.status] ?? String(r.status), error);
  }
  const read = await readInferResponse(r);
  const [o] = read.json.outputs as { datatype: string; shape: number[]; data?: string[] }[];
  const strings = binary ? deserialize(read.binary.get("OUTPUT0")!) : o.data!;
  assert.equal(binary, read.binary.has("OUTPUT0"));
  return { datatype: o.datatype, shape: o.shape.map(Number), strings };
}

function grpcRequest(model: string, input: Input, k: unknown): Msg {
  return {
    model_name: model,
    inputs: [{ name: "INPUT0", datatype: input.datatype, shape: input.shape }],
    raw_input_contents: [input.bytes],
    outputs: [{
      name: "OUTPUT0",
      parameters: {
        classification: typeof k === "number"
          ? { int64_param: String(k) }
          : typeof k === "boolean"
          ? { bool_param: k }
          : { string_param: String(k) },
      },
    }],
  };
}

function grpcClassified(response: Msg): Classified {
  const [o] = response.outputs as { datatype: string; shape: string[] }[];
  const [raw] = response.raw_output_contents as Uint8Array[];
  return { datatype: o.datatype, shape: o.shape.map(Number), strings: deserialize(raw) };
}

/** Over gRPC's ModelInfer. */
function overGrpc(transport: GrpcTransportName, model: string, input: Input, k: unknown) {
  const { client } = services.get(transport)!;
  return new Promise<Classified>((resolve, reject) => {
    client.ModelInfer(grpcRequest(model, input, k), (e: grpc.ServiceError | null, r: Msg) => {
      if (e) reject(new Failed(GRPC_CODE[e.code] ?? String(e.code), e.details));
      else resolve(grpcClassified(r));
    });
  });
}

/** Over gRPC's ModelStreamInfer: one request on a stream of its own. */
function overStream(transport: GrpcTransportName, model: string, input: Input, k: unknown) {
  const { client } = services.get(transport)!;
  return new Promise<Classified>((resolve, reject) => {
    const stream = client.ModelStreamInfer() as grpc.ClientDuplexStream<Msg, Msg>;
    stream.on("data", (m: Msg) => {
      stream.end();
      const message = m.error_message as string;
      if (message) reject(new Failed("stream", message));
      else resolve(grpcClassified(m.infer_response as Msg));
    });
    stream.on("error", reject);
    stream.write(grpcRequest(model, input, k));
  });
}

/** The classification over every protocol and encoding; each must equal `want`. */
async function classifyEverywhere(model: string, input: Input, k: number, want: Classified) {
  const answers: [string, Classified][] = [
    ["HTTP JSON", await overHttp(model, input, k, false)],
    ["HTTP binary", await overHttp(model, input, k, true)],
  ];
  for (const t of TRANSPORTS) {
    answers.push([`gRPC ${t}`, await overGrpc(t, model, input, k)]);
    answers.push([`gRPC stream ${t}`, await overStream(t, model, input, k)]);
  }
  for (const [how, got] of answers) assert.deepEqual(got, want, how);
}

/** The error every protocol answers (the stream's is its message only). */
async function failsEverywhere(
  model: string,
  input: Input,
  k: unknown,
  code: string,
  says: RegExp,
) {
  const check = (how: string, wantCode: string) => (e: unknown) => {
    assert.ok(e instanceof Failed, `${how}: ${e}`);
    assert.equal(e.code, wantCode, `${how}: ${e.message}`);
    assert.match(e.message, says, how);
    return true;
  };
  await assert.rejects(overHttp(model, input, k, false), check("HTTP", code));
  for (const t of TRANSPORTS) {
    await assert.rejects(overGrpc(t, model, input, k), check(`gRPC ${t}`, code));
    await assert.rejects(overStream(t, model, input, k), check(`gRPC stream ${t}`, "stream"));
  }
}

test("top k with labels: the largest first, 'value:index:label', floats as %f", async () => {
  await classifyEverywhere("labels_fp32", fp32([1, 4], [0.1, 0.7, 0.05, 0.15]), 2, {
    datatype: "BYTES",
    shape: [1, 2],
    strings: ["0.700000:1:dog", "0.150000:3:fish"],
  });
  await settled(s);
});

test("each batch row on its own; classes past the label file have no label", async () => {
  const input = fp32([2, 6], [0.5, -1, 2.25, 1e10, 7, 7, 0, 0, 0, 0, 0, -0.0000005]);
  await classifyEverywhere("labels_fp32", input, 3, {
    datatype: "BYTES",
    shape: [2, 3],
    strings: [
      "10000000000.000000:3:fish",
      "7.000000:4",
      "7.000000:5",
      "0.000000:0:cat",
      "0.000000:1:dog",
      "0.000000:2:bird",
    ],
  });
  await settled(s);
});

test("k past the class count returns every class", async () => {
  await classifyEverywhere("labels_fp32", fp32([1, 4], [3, 1, 2, -4]), 10, {
    datatype: "BYTES",
    shape: [1, 4],
    strings: ["3.000000:0:cat", "2.000000:2:bird", "1.000000:1:dog", "-4.000000:3:fish"],
  });
  await settled(s);
});

test("a model that does not batch: the whole tensor is one row; an empty label line is none", async () => {
  await classifyEverywhere("labels_int32", int32([2, 3], [5, -3, 9, 0, 9, 1]), 4, {
    datatype: "BYTES",
    shape: [4],
    strings: ["9:2", "9:4", "5:0:zero", "1:5"],
  });
  await settled(s);
});

test("ties rank as tritonserver's std::sort leaves them, past 16 classes too", async () => {
  await classifyEverywhere(
    "identity_int32",
    int32([1, 40], [...Array(40).keys()].map((i) => i % 3)),
    5,
    {
      datatype: "BYTES",
      shape: [1, 5],
      strings: ["2:29", "2:20", "2:17", "2:23", "2:14"],
    },
  );
  // Values that drive std::sort's quicksort past its depth limit into heapsort (found with
  // McIlroy's adversary), ties included; the order is the one libstdc++ gives.
  const deep = [
    18,
    0,
    43,
    47,
    38,
    36,
    34,
    32,
    30,
    38,
    33,
    36,
    35,
    34,
    29,
    32,
    31,
    30,
    26,
    37,
    26,
    28,
    25,
    35,
    25,
    28,
    24,
    33,
    24,
    27,
    23,
    31,
    23,
    27,
    22,
    29,
    22,
    21,
    41,
    11,
    10,
    9,
    8,
    7,
    6,
    5,
    4,
    3,
    2,
    1,
    0,
    45,
    18,
    44,
    17,
    40,
    17,
    45,
    16,
    41,
    16,
    39,
    15,
    47,
    15,
    39,
    14,
    48,
    14,
    37,
    13,
    46,
    13,
    42,
    12,
    40,
    12,
    43,
    50,
    21,
    11,
    49,
    10,
    20,
    9,
    48,
    8,
    20,
    7,
    46,
    6,
    19,
    5,
    42,
    4,
    19,
    3,
    44,
    2,
    1,
  ];
  assert.deepEqual(
    [...classOrder(Int32Array.from(deep)).subarray(0, 12)],
    [78, 81, 67, 85, 63, 3, 71, 89, 51, 57, 53, 97],
  );
  const twenty = [...Array(20).keys()].map((i) => (i * 7) % 5);
  assert.deepEqual([...classOrder(Int32Array.from(twenty)).subarray(0, 6)], [2, 17, 7, 12, 19, 4]);
  await settled(s);
});

/** Each data type tritonserver classifies, with values [3, 1, 4, 1, 5] (and its extremes). */
const NUMERIC: readonly [string, (v: number[]) => ArrayBufferView, string[]][] = [
  ["UINT8", (v) => new Uint8Array(v), ["5:4", "4:2", "3:0"]],
  ["UINT16", (v) => new Uint16Array(v), ["5:4", "4:2", "3:0"]],
  ["UINT32", (v) => new Uint32Array(v), ["5:4", "4:2", "3:0"]],
  ["UINT64", (v) => new BigUint64Array(v.map(BigInt)), ["5:4", "4:2", "3:0"]],
  ["INT8", (v) => new Int8Array(v), ["5:4", "4:2", "3:0"]],
  ["INT16", (v) => new Int16Array(v), ["5:4", "4:2", "3:0"]],
  ["INT32", (v) => new Int32Array(v), ["5:4", "4:2", "3:0"]],
  ["INT64", (v) => new BigInt64Array(v.map(BigInt)), ["5:4", "4:2", "3:0"]],
  ["FP32", (v) => new Float32Array(v), ["5.000000:4", "4.000000:2", "3.000000:0"]],
  ["FP64", (v) => new Float64Array(v), ["5.000000:4", "4.000000:2", "3.000000:0"]],
];

test("every data type tritonserver classifies: integers in full, floats with six decimals", async () => {
  for (const [dtype, make, strings] of NUMERIC) {
    const input = { datatype: dtype, shape: [1, 5], bytes: bytesOf(make([3, 1, 4, 1, 5])) };
    await classifyEverywhere(`identity_${dtype.toLowerCase()}`, input, 3, {
      datatype: "BYTES",
      shape: [1, 3],
      strings,
    });
  }
  const extremes: [string, ArrayBufferView, string[]][] = [
    ["UINT64", new BigUint64Array([1n, 2n ** 64n - 1n, 0n]), ["18446744073709551615:1", "1:0"]],
    ["INT64", new BigInt64Array([-(2n ** 63n), 2n ** 63n - 1n, 0n]), [
      "9223372036854775807:1",
      "0:2",
    ]],
    ["INT8", new Int8Array([-128, -1, -7]), ["-1:1", "-7:2"]],
    ["FP64", new Float64Array([0.0078125, -1e300, 1 / 3]), ["0.333333:2", "0.007812:0"]],
    ["FP32", new Float32Array([3.4e38, NaN, -Infinity]), [
      "339999995214436424907732413799364296704.000000:0",
      "nan:1",
    ]],
  ];
  for (const [dtype, data, strings] of extremes) {
    const input = { datatype: dtype, shape: [1, 3], bytes: bytesOf(data) };
    const got = await overHttp(`identity_${dtype.toLowerCase()}`, input, 2, false);
    assert.deepEqual(got.strings, strings, dtype);
    if (GRPC_SKIP) continue;
    const viaGrpc = await overGrpc("http2", `identity_${dtype.toLowerCase()}`, input, 2);
    assert.deepEqual(viaGrpc.strings, strings, `${dtype} over gRPC`);
  }
  await settled(s);
});

test("%f as glibc prints it: exact binary value, ties to even, every integer digit", () => {
  assert.equal(fixed6(0), "0.000000");
  assert.equal(fixed6(-0), "-0.000000");
  assert.equal(fixed6(-1e-9), "-0.000000");
  assert.equal(fixed6(0.0078125), "0.007812"); // exactly half way: to even
  assert.equal(fixed6(0.0234375), "0.023438");
  assert.equal(fixed6(1.0000005), "1.000001"); // just above half way in binary
  assert.equal(fixed6(2.5e-7), "0.000000");
  assert.equal(fixed6(1e21), "1000000000000000000000.000000");
  assert.equal(fixed6(Number.MAX_VALUE).length, 309 + 7);
  assert.equal(fixed6(5e-324), "0.000000");
  assert.equal(fixed6(Infinity), "inf");
  assert.equal(fixed6(-Infinity), "-inf");
  assert.equal(fixed6(NaN), "nan");
  assert.equal(fixed6(NaN, true), "-nan");
});

test("k = 0 returns the tensor as it is", async () => {
  const input = int32([1, 3], [7, 8, 9]);
  const r = await postBinary(`${s.url}/v2/models/identity_int32/infer`, {
    inputs: [{
      name: "INPUT0",
      datatype: "INT32",
      shape: [1, 3],
      parameters: { binary_data_size: 12 },
    }],
    outputs: [{ name: "OUTPUT0", parameters: { classification: 0, binary_data: false } }],
  }, [input.bytes]);
  const read = await readInferResponse(r);
  assert.deepEqual(read.json.outputs, [{
    name: "OUTPUT0",
    datatype: "INT32",
    shape: [1, 3],
    data: [7, 8, 9],
  }]);
  await settled(s);
});

test("data types tritonserver does not classify, and bad counts, are refused", async () => {
  const one = (datatype: string, bytes: Uint8Array) => ({ datatype, shape: [1, 1], bytes });
  const cases: [string, Input][] = [
    ["BOOL", one("BOOL", new Uint8Array([1]))],
    ["FP16", one("FP16", new Uint8Array([0, 60]))],
    ["BF16", one("BF16", new Uint8Array([128, 63]))],
    ["BYTES", one("BYTES", new Uint8Array([1, 0, 0, 0, 97]))],
  ];
  for (const [dtype, input] of cases) {
    await failsEverywhere(
      `identity_${dtype.toLowerCase()}`,
      input,
      1,
      "INVALID_ARG",
      new RegExp(`^class result not available for output due to unsupported type '${dtype}'$`),
    );
  }
  await failsEverywhere(
    "identity_int8",
    { datatype: "INT8", shape: [1, 1_000_001], bytes: new Uint8Array(1_000_001) },
    1,
    "INVALID_ARG",
    /^classification output tensor too large$/,
  );
  const input = fp32([1, 4], [1, 2, 3, 4]);
  await failsEverywhere(
    "labels_fp32",
    input,
    -1,
    "INVALID_ARG",
    /^invalid value for 'classification' parameter, expected >= 0$/,
  );
  await failsEverywhere(
    "labels_fp32",
    input,
    true,
    "INVALID_ARG",
    /^invalid value type for 'classification' parameter, expected an integer, not true$/,
  );
  await settled(s);
});

test("InferResponse.classificationLabel reads the output's label file", async () => {
  const model = s.server.model("labels_fp32");
  {
    using r = await model.inferOne({
      inputs: { INPUT0: { dtype: "FP32", shape: [1, 6], data: [1, 2, 3, 4, 5, 6] } },
      keepResponses: true,
    });
    await new Promise((resolve) => setTimeout(resolve, 20)); // kept past later macrotasks
    assert.deepEqual(
      [0, 1, 2, 3, 4, 2 ** 32 - 1].map((i) => r.classificationLabel("OUTPUT0", i)),
      ["cat", "dog", "bird", "fish", undefined, undefined],
    );
    assert.throws(() => r.classificationLabel("NOPE", 0), (e) => {
      assert.ok(e instanceof TritonError);
      assert.equal(e.code, "NOT_FOUND");
      return true;
    });
    for (const bad of [-1, 1.5, 2 ** 32, NaN]) {
      assert.throws(() => r.classificationLabel("OUTPUT0", bad), /class index/);
    }
    r.dispose();
    assert.throws(() => r.classificationLabel("OUTPUT0", 0), (e) => {
      assert.ok(e instanceof TritonError);
      assert.equal(e.code, "UNAVAILABLE");
      return true;
    });
  }
  {
    using r = await s.server.model("labels_int32").inferOne({
      inputs: { INPUT0: { dtype: "INT32", shape: [1, 4], data: [1, 2, 3, 4] } },
      keepResponses: true,
    });
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((i) => r.classificationLabel("OUTPUT0", i)),
      ["zero", "one", undefined, "three", undefined],
    );
  }
  {
    using r = await s.server.model("identity_fp32").inferOne({
      inputs: { INPUT0: { dtype: "FP32", shape: [1, 2], data: [1, 2] } },
      keepResponses: true,
    });
    assert.equal(r.classificationLabel("OUTPUT0", 0), undefined);
  }
  assert.throws(
    () => model.infer({ inputs: {}, keepResponses: "yes" as unknown as boolean }),
    (e) => e instanceof TritonError && e.code === "INVALID_ARG" && /keepResponses/.test(e.message),
  );
  // Kept past the stream and the server's budget: still readable after the reader moved on.
  const responses = await Array.fromAsync(model.infer({
    inputs: { INPUT0: { dtype: "FP32", shape: [1, 2], data: [1, 2] } },
    keepResponses: true,
  }));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(responses[0].classificationLabel("OUTPUT0", 1), "dog");
  for (const r of responses) r.dispose();
  await settled(s);
});

test("a label file that cannot be read, or lies outside the model, fails the load", async () => {
  const repo = tempRepo();
  const config = (label: string) =>
    identityConfig().replace(
      "dims: [ -1 ] } ]\ninstance",
      `dims: [ -1 ] label_filename: "${label}" } ]\ninstance`,
    );
  try {
    repo.add("missing", { "config.pbtxt": config("labels.txt"), "1/.keep": "" });
    repo.add("outside", { "config.pbtxt": config("../secret.txt"), "1/.keep": "" });
    repo.add("", { "secret.txt": "a\n" });
    const server = await startServer({ modelRepository: repo.path, modelControlMode: "explicit" });
    try {
      await assert.rejects(server.loadModel("missing"), (e) => {
        assert.ok(e instanceof TritonError);
        assert.match(
          e.message,
          /failed to open text file for read .*missing\/labels\.txt: No such file/,
        );
        return true;
      });
      await assert.rejects(server.loadModel("outside"), (e) => {
        assert.ok(e instanceof TritonError);
        assert.match(
          e.message,
          /label file path '.*outside\/\.\.\/secret\.txt' for output 'OUTPUT0' in model 'outside' is outside model directory/,
        );
        return true;
      });
    } finally {
      await server.stop();
    }
  } finally {
    repo.remove();
  }
});
