/**
 * Compression on both front ends, as tritonserver answers it. HTTP: request bodies in
 * `Content-Encoding: gzip` and `deflate` (binary tensor data included), infer responses
 * compressed per `Accept-Encoding` (its q-values), an unknown encoding refused (501, with
 * `Accept-Encoding`), a body that inflates past the limit (a "zip bomb") refused with 413. gRPC,
 * on both transports: compressed request messages (unary ModelInfer and streaming
 * ModelStreamInfer), responses compressed at `inferResponseCompression` in an encoding the client
 * accepts, an unknown encoding UNIMPLEMENTED, a message that inflates past `maxMessageBytes`
 * RESOURCE_EXHAUSTED. Every tensor comes back byte-exact, at sizes where the strategy changes
 * (smaller than its compressed form, around the inflater's 64 KiB pieces, several MiB).
 *
 * The raw exchanges go through `node:http` and `node:http2`, whose clients leave bodies and
 * messages as sent: what is checked is what went over the wire.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import * as http from "node:http";
import * as http2 from "node:http2";
import * as zlib from "node:zlib";
import { after, before } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { skippingAll, test } from "./support/test.ts";
import { type Server, TritonError } from "../mod.ts";
import { type HttpService, serve } from "../serve.ts";
import { type GrpcService, type GrpcTransportName, serveGrpc } from "../grpc.ts";
import { serviceDefinitions } from "../serving/kserve/grpc/definitions.ts";
import { responseEncoding } from "../serving/common/content_encoding.ts";
import { responseEncodingFor } from "../serving/kserve/grpc/transport.ts";
import { GRPC_SKIP, idle, startServer } from "./support/env.ts";
import { runPython, skipUnlessImportable, supportScript } from "./support/tritonclient.ts";
import { parseExact } from "./support/serve.ts";
import type { Msg } from "./support/grpc_requests.ts";

const definitions = serviceDefinitions();
const MODEL_INFER = definitions.inference.ModelInfer;
const STREAM_INFER = definitions.inference.ModelStreamInfer;

/** Tiny (its compressed form is larger), around the inflater's 64 KiB pieces, several MiB. */
const SIZES = [3, 64 * 1024, 64 * 1024 + 1, 5 * 1024 * 1024 + 7];
const ENCODINGS = ["gzip", "deflate"] as const;
type Enc = typeof ENCODINGS[number];

/** `n` bytes that compress, but not to nothing: runs of a byte between pseudo-random stretches. */
function tensorBytes(n: number, seed = 1): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed * 2654435761 >>> 0;
  for (let i = 0; i < n; i++) {
    if ((i >> 9) % 2 === 0) {
      x = (x * 1103515245 + 12345) >>> 0;
      out[i] = x >>> 24;
    } else out[i] = i >> 9 & 0xff;
  }
  return out;
}

function compressed(bytes: Uint8Array, encoding: Enc): Buffer {
  return encoding === "gzip" ? zlib.gzipSync(bytes) : zlib.deflateSync(bytes);
}

function inflated(bytes: Uint8Array, encoding: Enc): Buffer {
  return encoding === "gzip" ? zlib.gunzipSync(bytes) : zlib.inflateSync(bytes);
}

/** Checks `actual` is `expected` byte for byte (without a huge diff on failure). */
function sameBytes(actual: Uint8Array, expected: Uint8Array, what: string): void {
  assert.equal(actual.byteLength, expected.byteLength, `${what}: length`);
  assert.ok(Buffer.from(actual).equals(Buffer.from(expected)), `${what}: bytes`);
}

let server: Server;
/** Each suite's service start and close, run by the one `before` and `after` (in order: the
 * runners do not all run several root hooks in the order given). */
const starts: (() => Promise<void>)[] = [];
const closes: (() => Promise<void>)[] = [];
before(async () => {
  server = await startServer({ modelControlMode: "explicit", startupModels: ["*"] });
  for (const start of starts) await start();
});
after(async () => {
  for (const close of closes) await close();
  await server?.stop();
});

// ---------------------------------------------------------------------------------------------
// HTTP

interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

/** One request with `node:http` (which neither compresses nor inflates). */
function exchange(
  port: number,
  method: string,
  path: string,
  body?: Uint8Array,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: "127.0.0.1", port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on(
        "end",
        () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
      );
      res.on("error", reject);
    });
    request.on("error", reject);
    request.end(body);
  });
}

/** The binary infer request of identity_uint8 for `data`: its body and JSON header length. */
function binaryInfer(data: Uint8Array): { body: Buffer; headerLength: number } {
  const header = Buffer.from(JSON.stringify({
    inputs: [{
      name: "INPUT0",
      datatype: "UINT8",
      shape: [1, data.byteLength],
      parameters: { binary_data_size: data.byteLength },
    }],
    outputs: [{ name: "OUTPUT0", parameters: { binary_data: true } }],
  }));
  return { body: Buffer.concat([header, data]), headerLength: header.byteLength };
}

/** The output of a binary identity_uint8 response body (inflated), checked against its header. */
function binaryOutput(res: RawResponse, body: Uint8Array): Uint8Array {
  const jsonLength = Number(res.headers["inference-header-content-length"]);
  const json = parseExact(new TextDecoder().decode(body.subarray(0, jsonLength))) as {
    outputs: { name: string; parameters: { binary_data_size: number } }[];
  };
  assert.equal(json.outputs[0].name, "OUTPUT0");
  assert.equal(json.outputs[0].parameters.binary_data_size, body.byteLength - jsonLength);
  return body.subarray(jsonLength);
}

function httpSuite(): void {
  let service: HttpService;
  const limited: { service?: HttpService } = {};
  const LIMIT = 1024 * 1024;
  starts.push(async () => {
    service = await serve(server, { port: 0 });
    limited.service = await serve(server, { port: 0, maxRequestBytes: LIMIT, maxJsonBytes: LIMIT });
  });
  closes.push(async () => {
    await service?.close();
    await limited.service?.close();
  });
  const infer = "/v2/models/identity_uint8/infer";

  for (const encoding of ENCODINGS) {
    test(`HTTP ${encoding}: binary infer round trips byte-exact, request and response compressed`, async () => {
      for (const size of SIZES) {
        const data = tensorBytes(size, size);
        const { body, headerLength } = binaryInfer(data);
        const sent = compressed(body, encoding);
        const res = await exchange(service.port, "POST", infer, sent, {
          "content-encoding": encoding,
          "accept-encoding": encoding,
          "inference-header-content-length": String(headerLength),
        });
        assert.equal(res.status, 200, `${size} bytes: ${res.body}`);
        assert.equal(res.headers["content-encoding"], encoding, `${size} bytes`);
        assert.equal(res.headers["content-type"], "application/octet-stream");
        // The header length counts the JSON before compression, as tritonserver's does.
        const plain = inflated(res.body, encoding);
        sameBytes(binaryOutput(res, plain), data, `${encoding}, ${size} bytes`);
        if (size > 1024) assert.ok(res.body.byteLength < plain.byteLength, "it was compressed");
      }
    });
  }

  test("HTTP: either encoding reads either format (as tritonserver's inflater), JSON both ways", async () => {
    const data = [1, 2, 3, 250];
    const body = Buffer.from(JSON.stringify({
      inputs: [{ name: "INPUT0", datatype: "UINT8", shape: [1, 4], data }],
    }));
    // Named gzip, sent as zlib: tritonserver's inflater tells them apart by their headers.
    const res = await exchange(service.port, "POST", infer, zlib.deflateSync(body), {
      "content-encoding": "gzip",
      "accept-encoding": "deflate",
    });
    assert.equal(res.status, 200, String(res.body));
    assert.equal(res.headers["content-encoding"], "deflate");
    assert.equal(res.headers["content-type"], "application/json");
    const json = JSON.parse(String(zlib.inflateSync(res.body)));
    assert.deepEqual(json.outputs[0].data, data);
    // identity, and an empty encoding, are no encoding.
    for (const none of ["identity", ""]) {
      const plain = await exchange(service.port, "POST", infer, body, {
        "content-encoding": none,
      });
      assert.equal(plain.status, 200, String(plain.body));
      assert.equal(plain.headers["content-encoding"], undefined);
      assert.deepEqual(JSON.parse(String(plain.body)).outputs[0].data, data);
    }
  });

  test("HTTP: Accept-Encoding's q-values choose the response encoding as tritonserver does", async () => {
    const cases: [string | null, Enc | undefined][] = [
      [null, undefined],
      ["gzip", "gzip"],
      ["deflate", "deflate"],
      ["gzip;q=0.5, deflate;q=0.8", "deflate"],
      ["deflate;q=0.5, gzip", "gzip"],
      ["br, gzip;q=0.1", "gzip"],
      ["br", undefined],
      ["*", undefined],
      ["identity, gzip", undefined], // the first of the highest weight
      ["identity;q=0.5, gzip;q=0.6", "gzip"],
      ["gzip;q=0", undefined],
      ["gzip;q=abc, deflate;q=0.2", "deflate"], // a weight that does not parse is passed over
      // Codings without regard to case or spaces, as HTTP defines them (tritonserver: exact).
      [" gzip ;q=0.9", "gzip"],
      ["GZIP", "gzip"],
    ];
    for (const [header, expected] of cases) {
      assert.equal(responseEncoding(header), expected, `Accept-Encoding: ${header}`);
    }
    const body = Buffer.from(JSON.stringify({
      inputs: [{ name: "INPUT0", datatype: "UINT8", shape: [1, 2], data: [7, 8] }],
    }));
    for (const [header, expected] of cases) {
      const headers: Record<string, string> = header === null ? {} : { "accept-encoding": header };
      const res = await exchange(service.port, "POST", infer, body, headers);
      assert.equal(res.status, 200);
      assert.equal(res.headers["content-encoding"], expected, `Accept-Encoding: ${header}`);
      const text = expected === undefined ? String(res.body) : String(inflated(res.body, expected));
      assert.deepEqual(JSON.parse(text).outputs[0].data, [7, 8]);
    }
    // Only infer responses are compressed (as tritonserver): metadata and errors are not.
    const meta = await exchange(service.port, "GET", "/v2/models/identity_uint8", undefined, {
      "accept-encoding": "gzip",
    });
    assert.equal(meta.status, 200);
    assert.equal(meta.headers["content-encoding"], undefined);
    const error = await exchange(service.port, "POST", "/v2/models/nonexistent/infer", body, {
      "accept-encoding": "gzip",
    });
    assert.equal(error.status, 404);
    assert.equal(error.headers["content-encoding"], undefined);
  });

  test("HTTP: an unknown Content-Encoding is refused as tritonserver refuses it", async () => {
    const body = Buffer.from("{}");
    for (const path of [infer, "/v2/repository/index", "/v2/models/identity_uint8/generate"]) {
      const res = await exchange(service.port, "POST", path, body, { "content-encoding": "br" });
      assert.equal(res.status, 501, `${path}: ${res.body}`);
      assert.deepEqual(JSON.parse(String(res.body)), { error: "Unsupported compression type" });
      assert.equal(res.headers["accept-encoding"], "gzip, deflate");
    }
  });

  test("HTTP: every route with a body inflates it (repository index, generate)", async () => {
    const index = await exchange(
      service.port,
      "POST",
      "/v2/repository/index",
      zlib.gzipSync(JSON.stringify({ ready: true })),
      { "content-encoding": "gzip", "content-type": "application/json" },
    );
    assert.equal(index.status, 200, String(index.body));
    const models = JSON.parse(String(index.body)) as { name: string }[];
    assert.ok(models.some((m) => m.name === "identity_uint8"));
    // A compressed body that does not inflate is a bad request, named.
    const corrupt = await exchange(service.port, "POST", infer, Buffer.from("not gzip at all"), {
      "content-encoding": "gzip",
    });
    assert.equal(corrupt.status, 400);
    assert.match(
      JSON.parse(String(corrupt.body)).error,
      /^the request body could not be decompressed \(gzip\): /,
    );
    const empty = await exchange(service.port, "POST", infer, Buffer.alloc(0), {
      "content-encoding": "deflate",
    });
    assert.equal(empty.status, 400);
    assert.deepEqual(JSON.parse(String(empty.body)), { error: "nothing to be decompressed" });
  });

  test("HTTP: a body that inflates past maxRequestBytes is refused (413)", async () => {
    // 64 MiB of zeros in about 64 KiB: a bomb for a 1 MiB limit.
    const zeros = Buffer.alloc(64 * 1024 * 1024);
    const port = limited.service!.port;
    for (const encoding of ENCODINGS) {
      const { body, headerLength } = binaryInfer(zeros);
      const bomb = compressed(body, encoding);
      assert.ok(bomb.byteLength < LIMIT, "the bomb itself is under the limit");
      const res = await exchange(port, "POST", infer, bomb, {
        "content-encoding": encoding,
        "inference-header-content-length": String(headerLength),
      });
      assert.equal(res.status, 413, String(res.body));
      assert.equal(
        JSON.parse(String(res.body)).error,
        `decompressed request body of more than ${LIMIT} bytes exceeds the limit of ${LIMIT} ` +
          "bytes (maxRequestBytes)",
      );
      // A JSON body under the JSON limit (maxJsonBytes) as well.
      const json = await exchange(port, "POST", "/v2/repository/index", bomb, {
        "content-encoding": encoding,
      });
      assert.equal(json.status, 413);
      assert.match(JSON.parse(String(json.body)).error, /\(maxJsonBytes\)$/);
    }
    // The service goes on.
    const data = tensorBytes(1000);
    const { body, headerLength } = binaryInfer(data);
    const res = await exchange(port, "POST", infer, zlib.gzipSync(body), {
      "content-encoding": "gzip",
      "inference-header-content-length": String(headerLength),
    });
    assert.equal(res.status, 200);
    sameBytes(binaryOutput(res, res.body), data, "after the bombs");
    await idle(server);
  });
}

// ---------------------------------------------------------------------------------------------
// gRPC

/** What came back on a raw gRPC call. */
interface RawCall {
  readonly headers: http2.IncomingHttpHeaders;
  /** Each response message: its compressed flag and payload as sent. */
  readonly messages: { flag: number; payload: Buffer }[];
  readonly status: number;
  readonly details: string;
}

/** A gRPC message: flag, big-endian length, payload. */
function frame(payload: Uint8Array, flag: number): Buffer {
  const prefix = Buffer.alloc(5);
  prefix[0] = flag;
  prefix.writeUInt32BE(payload.byteLength, 1);
  return Buffer.concat([prefix, payload]);
}

/** Calls `path` on `port` with `node:http2`, sending `messages` (already framed) as they are. */
function rawCall(
  port: number,
  path: string,
  messages: readonly Buffer[],
  headers: Record<string, string>,
): Promise<RawCall> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on("error", reject);
    const stream = session.request({
      ":method": "POST",
      ":path": path,
      "content-type": "application/grpc",
      te: "trailers",
      ...headers,
    });
    let responseHeaders: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on("response", (h) => (responseHeaders = h));
    stream.on("trailers", (t) => (trailers = t));
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("error", reject);
    stream.on("close", () => {
      session.close();
      const data = Buffer.concat(chunks);
      const out: RawCall["messages"] = [];
      for (let at = 0; at < data.length;) {
        const length = data.readUInt32BE(at + 1);
        out.push({ flag: data[at], payload: data.subarray(at + 5, at + 5 + length) });
        at += 5 + length;
      }
      const end = trailers["grpc-status"] !== undefined ? trailers : responseHeaders;
      resolve({
        headers: responseHeaders,
        messages: out,
        status: Number(end["grpc-status"]),
        details: decodeURIComponent(String(end["grpc-message"] ?? "")),
      });
    });
    for (const m of messages) stream.write(m);
    stream.end();
  });
}

/** ModelInferRequest of identity_uint8 for `data`, serialized. */
function inferRequest(data: Uint8Array, id = ""): Buffer {
  return MODEL_INFER.requestSerialize({
    model_name: "identity_uint8",
    id,
    inputs: [{ name: "INPUT0", datatype: "UINT8", shape: [1, data.byteLength] }],
    raw_input_contents: [data],
  }) as Buffer;
}

/** The output bytes (and id) of a ModelInferResponse payload, inflated per its flag. */
function inferOutput(
  payload: Buffer,
  flag: number,
  encoding: Enc | undefined,
): { id: string; bytes: Uint8Array } {
  const plain = flag === 1 ? inflated(payload, encoding!) : payload;
  const response = MODEL_INFER.responseDeserialize(plain) as Msg;
  return { id: response.id as string, bytes: (response.raw_output_contents as Uint8Array[])[0] };
}

function grpcSuite(transport: GrpcTransportName): void {
  const test = skippingAll(GRPC_SKIP);
  const services: Record<string, GrpcService> = {};
  const MAX = 1024 * 1024;
  starts.push(async () => {
    if (GRPC_SKIP) return;
    services.plain = await serveGrpc(server, { port: 0, transport, maxMessageBytes: 64 << 20 });
    services.limited = await serveGrpc(server, { port: 0, transport, maxMessageBytes: MAX });
    if (transport === "http2") {
      for (const level of ["low", "medium", "high"] as const) {
        services[level] = await serveGrpc(server, {
          port: 0,
          transport,
          inferResponseCompression: level,
          maxMessageBytes: 64 << 20,
        });
      }
    }
  });
  closes.push(async () => {
    for (const s of Object.values(services)) await s.close();
  });

  for (const encoding of ENCODINGS) {
    test(`${transport}: unary ModelInfer with ${encoding} requests round trips byte-exact`, async () => {
      const port = (transport === "http2" ? services.high : services.plain).port;
      for (const size of SIZES) {
        const data = tensorBytes(size, size + 3);
        const call = await rawCall(port, MODEL_INFER.path, [
          frame(compressed(inferRequest(data), encoding), 1),
        ], { "grpc-encoding": encoding, "grpc-accept-encoding": `identity,${encoding}` });
        assert.equal(call.status, 0, call.details);
        assert.equal(call.messages.length, 1);
        const { flag, payload } = call.messages[0];
        if (transport === "http2") {
          // "high" with only this encoding accepted: this encoding, where it shrinks the message.
          assert.equal(call.headers["grpc-encoding"], encoding);
          if (size > 1024) assert.equal(flag, 1, `${size} bytes`);
          if (flag === 1) {
            const plain = inflated(payload, encoding);
            assert.ok(payload.byteLength < plain.byteLength, "only a message that shrinks");
          }
        } else {
          assert.equal(flag, 0, "grpc-js does not compress responses");
        }
        sameBytes(inferOutput(payload, flag, encoding).bytes, data, `${encoding}, ${size} bytes`);
      }
    });
  }

  test(`${transport}: streaming ModelStreamInfer, compressed and plain messages in order`, async () => {
    const port = (transport === "http2" ? services.low : services.plain).port;
    const sent = SIZES.map((size, i) => tensorBytes(size, 40 + i));
    const call = await rawCall(
      port,
      STREAM_INFER.path,
      sent.map((data, i) => {
        const message = inferRequest(data, `r${i}`);
        // Every other one compressed: a plain one behind a compressed one waits its turn.
        return i % 2 === 0 ? frame(zlib.gzipSync(message), 1) : frame(message, 0);
      }),
      { "grpc-encoding": "gzip", "grpc-accept-encoding": "identity,deflate,gzip" },
    );
    assert.equal(call.status, 0, call.details);
    assert.equal(call.messages.length, sent.length);
    const responses = call.messages.map(({ flag, payload }) => {
      // "low" of gzip and deflate: gzip, as grpc++ picks.
      const plain = flag === 1 ? zlib.gunzipSync(payload) : payload;
      const r = STREAM_INFER.responseDeserialize(plain) as Msg;
      assert.equal(r.error_message, "");
      const inner = r.infer_response as Msg;
      return { id: inner.id as string, bytes: (inner.raw_output_contents as Uint8Array[])[0] };
    });
    if (transport === "http2") {
      assert.equal(call.headers["grpc-encoding"], "gzip");
      assert.ok(call.messages.some((m) => m.flag === 1), "the large responses compressed");
    }
    const byId = new Map(responses.map((r) => [r.id, r.bytes]));
    sent.forEach((data, i) => sameBytes(byId.get(`r${i}`)!, data, `r${i}`));
    // The stream answers in request order (one model instance per request, in order).
    assert.deepEqual(responses.map((r) => r.id).sort(), sent.map((_, i) => `r${i}`).sort());
  });

  test(`${transport}: a grpc-js client with a default compression algorithm`, async () => {
    const Client = grpc.makeGenericClientConstructor(definitions.inference, "Inference");
    for (const [algorithm, name] of [[1, "deflate"], [2, "gzip"]] as const) {
      const service = transport === "http2" ? services.medium : services.plain;
      const client = new Client(service.address, grpc.credentials.createInsecure(), {
        "grpc.default_compression_algorithm": algorithm,
      }) as grpc.Client & Record<string, (...args: unknown[]) => unknown>;
      try {
        for (const size of [5, 200_000]) {
          const data = tensorBytes(size, algorithm);
          const response = await new Promise<Msg>((resolve, reject) =>
            client.ModelInfer(
              {
                model_name: "identity_uint8",
                inputs: [{ name: "INPUT0", datatype: "UINT8", shape: [1, size] }],
                raw_input_contents: [data],
              },
              (e: Error | null, r: Msg) => e ? reject(e) : resolve(r),
            )
          );
          sameBytes((response.raw_output_contents as Uint8Array[])[0], data, `${name}, ${size}`);
        }
      } finally {
        client.close();
      }
    }
  });

  test(`${transport}: an unknown grpc-encoding is UNIMPLEMENTED, naming the ones taken`, async () => {
    const call = await rawCall(services.plain.port, MODEL_INFER.path, [
      frame(zlib.gzipSync(inferRequest(tensorBytes(10))), 1),
    ], { "grpc-encoding": "br" });
    assert.equal(call.status, grpc.status.UNIMPLEMENTED);
    assert.equal(call.details, 'Received message compressed with unsupported encoding "br"');
    // The encodings taken (grpc-js's trailers-only answer has no headers besides the status).
    if (transport === "http2") {
      assert.equal(call.headers["grpc-accept-encoding"], "identity,deflate,gzip");
    }
    // Uncompressed messages in such a call are fine (the flag says they are not compressed).
    const plain = await rawCall(services.plain.port, MODEL_INFER.path, [
      frame(inferRequest(tensorBytes(10)), 0),
    ], { "grpc-encoding": "br" });
    assert.equal(plain.status, 0, plain.details);
    // A corrupt one is INTERNAL.
    const corrupt = await rawCall(services.plain.port, MODEL_INFER.path, [
      frame(Buffer.from("not gzip"), 1),
    ], { "grpc-encoding": "gzip" });
    assert.equal(corrupt.status, grpc.status.INTERNAL);
    assert.equal(corrupt.details, "Failed to decompress message");
  });

  test(`${transport}: a message that inflates past maxMessageBytes is RESOURCE_EXHAUSTED`, async () => {
    const bomb = zlib.gzipSync(inferRequest(new Uint8Array(64 * 1024 * 1024)));
    assert.ok(bomb.byteLength < MAX);
    for (const path of [MODEL_INFER.path, STREAM_INFER.path]) {
      const call = await rawCall(services.limited.port, path, [frame(bomb, 1)], {
        "grpc-encoding": "gzip",
      });
      assert.equal(call.status, grpc.status.RESOURCE_EXHAUSTED, call.details);
      assert.equal(
        call.details,
        `Received message that decompresses to a size larger than ${MAX} (maxMessageBytes)`,
      );
    }
    await idle(server);
  });
}

httpSuite();
grpcSuite("grpc-js");
grpcSuite("http2");

test("gRPC: the response encoding for a level, as grpc++ chooses it", () => {
  const both = "identity,deflate,gzip";
  assert.equal(responseEncodingFor("none", both), undefined);
  assert.equal(responseEncodingFor("low", both), "gzip");
  assert.equal(responseEncodingFor("medium", both), "deflate");
  assert.equal(responseEncodingFor("high", both), "deflate");
  assert.equal(responseEncodingFor("low", "identity, deflate"), "deflate");
  assert.equal(responseEncodingFor("high", "gzip"), "gzip");
  assert.equal(responseEncodingFor("high", "identity"), undefined);
  assert.equal(responseEncodingFor("high", undefined), undefined);
});

test("gRPC: inferResponseCompression's checks", { skip: GRPC_SKIP }, async () => {
  await assert.rejects(
    serveGrpc(server, { port: 0, transport: "grpc-js", inferResponseCompression: "low" }),
    (e: TritonError) => e.code === "INVALID_ARG" && /needs the "http2" transport/.test(e.message),
  );
  await assert.rejects(
    // deno-lint-ignore no-explicit-any
    serveGrpc(server, { port: 0, inferResponseCompression: "best" as any }),
    (e: TritonError) =>
      e.code === "INVALID_ARG" && /inferResponseCompression must be "none", "low"/.test(e.message),
  );
  // Not given a transport, a compressing service takes http2 on every runtime.
  const service = await serveGrpc(server, { port: 0, inferResponseCompression: "high" });
  try {
    assert.equal(service.transport, "http2");
  } finally {
    await service.close();
  }
});

const skipPython = await skipUnlessImportable("tritonclient.http, tritonclient.grpc");

test("Triton's Python clients compress requests and read compressed responses", {
  skip: GRPC_SKIP || skipPython,
}, async () => {
  const http = await serve(server, { port: 0 });
  const plain = await serveGrpc(server, { port: 0, transport: "grpc-js" });
  const compressing = await serveGrpc(server, {
    port: 0,
    transport: "http2",
    inferResponseCompression: "high",
  });
  try {
    const { code, output } = await runPython([
      supportScript("tritonclient_compression_check.py"),
      `127.0.0.1:${http.port}`,
      plain.address,
      compressing.address,
    ]);
    assert.equal(code, 0, output);
    assert.match(output, /tritonclient compression: all \d+ checks passed/);
    console.log(output.trim());
  } finally {
    await http.close();
    await plain.close();
    await compressing.close();
  }
  await idle(server);
});
