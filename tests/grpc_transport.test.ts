/**
 * `serveGrpc({ transport: "http2" })`: what the project's own gRPC framing on `node:http2` must do
 * that a `@grpc/grpc-js` client cannot ask for, driven by raw `node:http2` requests — the
 * framing (a message split over many DATA frames, many messages in one, 8 MiB each way byte for
 * byte), `grpc-timeout` deadlines, a client's RST_STREAM, compression refused, content type and
 * method refused, unary calls without exactly one message, sizes refused from the length prefix,
 * `grpc-message` percent-encoded, trailers-only errors, pings, 500 calls on one connection,
 * close() with and without a timeout, and `TRITONFFI_GRPC_TRANSPORT`.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import * as http2 from "node:http2";
import process from "node:process";
import { after, before } from "node:test";
import { skippingAll } from "./support/test.ts";
import { type Server, TritonError } from "../mod.ts";
import { runtimeName } from "../ffi/mod.ts";
import { type GrpcService, serveGrpc } from "../grpc.ts";
import { serviceDefinitions } from "../serving/kserve/grpc/definitions.ts";
import { GRPC_SKIP, startServer } from "./support/env.ts";
import { type Msg, repeatRequest } from "./support/grpc_requests.ts";

// Every test here serves gRPC (see GRPC_SKIP).
const test = skippingAll(GRPC_SKIP);

const { inference } = serviceDefinitions();
const INFER = "/inference.GRPCInferenceService/ModelInfer";
const STREAM = "/inference.GRPCInferenceService/ModelStreamInfer";
const LIVE = "/inference.GRPCInferenceService/ServerLive";

let server: Server;
let service: GrpcService;
let session: http2.ClientHttp2Session;

/** A one-response model that takes {@link SLOW_MS} to answer (identity's `execute_delay_ms`):
 * ModelInfer refuses decoupled models, so the slow unary calls go to it. */
const SLOW_MODEL = "identity_int8";
const SLOW_MS = 1000;
/** A request to {@link SLOW_MODEL}. */
const slowRequest = (): Msg => ({
  model_name: SLOW_MODEL,
  inputs: [{ name: "INPUT0", datatype: "INT8", shape: [1, 1] }],
  raw_input_contents: [new Uint8Array([7])],
});

before(async () => {
  if (GRPC_SKIP) return;
  server = await startServer({ modelControlMode: "explicit", startupModels: ["*"] });
  const tensor = (name: string) => ({ name, data_type: "TYPE_INT8" as const, dims: [-1] });
  await server.loadModel(SLOW_MODEL, {
    config: {
      name: SLOW_MODEL,
      backend: "identity",
      max_batch_size: 8,
      input: [tensor("INPUT0")],
      output: [tensor("OUTPUT0")],
      parameters: { execute_delay_ms: { string_value: String(SLOW_MS) } },
    },
  });
  service = await serveGrpc(server, { port: 0, transport: "http2" });
  session = connect(service);
});
after(async () => {
  session?.close();
  await service?.close();
  await server?.stop();
});

function connect(s: GrpcService): http2.ClientHttp2Session {
  const c = http2.connect(`http://${s.address}`);
  c.on("error", () => {});
  return c;
}

/** A message's gRPC frame: flag 0 (or `flag`), big-endian length, payload. */
function frame(payload: Uint8Array, flag = 0): Buffer {
  const out = Buffer.alloc(5 + payload.byteLength);
  out[0] = flag;
  out.writeUInt32BE(payload.byteLength, 1);
  out.set(payload, 5);
  return out;
}

const encodeInfer = (m: Msg) => inference.ModelInfer.requestSerialize(m) as Buffer;
const decodeInfer = (b: Buffer) => inference.ModelInfer.responseDeserialize(b) as Msg;
const decodeStream = (b: Buffer) => inference.ModelStreamInfer.responseDeserialize(b) as Msg;

/** What came back: headers, trailers (none for a trailers-only response), the messages, and the
 * status and its message (percent-decoded) from wherever they came. */
interface Reply {
  headers: http2.IncomingHttpHeaders;
  trailers: http2.IncomingHttpHeaders | undefined;
  messages: Buffer[];
  status: number | undefined;
  rawMessage: string | undefined;
  message: string | undefined;
}

/** Splits a response body into its messages. */
function messagesOf(body: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    assert.equal(body[at], 0, "a response message is never compressed");
    const n = body.readUInt32BE(at + 1);
    out.push(body.subarray(at + 5, at + 5 + n));
    at += 5 + n;
  }
  assert.equal(at, body.length, "the body ends on a message boundary");
  return out;
}

/**
 * Opens a call on `on` (the shared session unless given) and lets `send` write its body (it ends
 * the stream, or not); resolves with the {@link Reply} once the stream closes (the client resets
 * it once the server has ended it).
 */
function rawCall(
  path: string,
  send: (stream: http2.ClientHttp2Stream) => void | Promise<void>,
  headers: http2.OutgoingHttpHeaders = {},
  on: http2.ClientHttp2Session = session,
): { stream: http2.ClientHttp2Stream; reply: Promise<Reply> } {
  const stream = on.request({
    ":method": "POST",
    ":path": path,
    "content-type": "application/grpc",
    te: "trailers",
    ...headers,
  });
  const reply = new Promise<Reply>((resolve, reject) => {
    let got: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders | undefined;
    const chunks: Buffer[] = [];
    stream.on("response", (h) => (got = h));
    stream.on("trailers", (t) => (trailers = t));
    stream.on("data", (d: Buffer) => chunks.push(d));
    // The server is done: a client still sending stops (RST_STREAM), as gRPC clients do.
    stream.on("end", () => stream.close());
    stream.on("error", () => {});
    stream.on("close", () => {
      try {
        const last = trailers ?? got;
        const status = last["grpc-status"];
        const raw = last["grpc-message"] as string | undefined;
        resolve({
          headers: got,
          trailers,
          messages: messagesOf(Buffer.concat(chunks)),
          status: status === undefined ? undefined : Number(status),
          rawMessage: raw,
          message: raw === undefined ? undefined : decodeURIComponent(raw),
        });
      } catch (e) {
        reject(e);
      }
    });
  });
  Promise.resolve(send(stream)).catch((e) => stream.destroy(e));
  return { stream, reply };
}

/** A unary call of one message. */
function unary(path: string, message: Buffer, headers: http2.OutgoingHttpHeaders = {}) {
  return rawCall(path, (s) => void s.end(frame(message)), headers).reply;
}

/** An identity_uint8 request for `bytes`. */
function identityRequest(bytes: Uint8Array, id = ""): Msg {
  return {
    model_name: "identity_uint8",
    id,
    inputs: [{ name: "INPUT0", datatype: "UINT8", shape: [1, bytes.byteLength] }],
    raw_input_contents: [bytes],
  };
}

/** `n` bytes of noise (never periodic), from `seed`. */
function noise(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** The one output of an identity response. */
function outputOf(r: Msg): Uint8Array {
  return (r.raw_output_contents as Uint8Array[])[0];
}

/** `got` holds exactly `want`'s bytes. */
function assertSame(got: Uint8Array, want: Uint8Array): void {
  assert.equal(got.byteLength, want.byteLength, "byte length");
  assert.ok(Buffer.from(got.buffer, got.byteOffset, got.byteLength).equals(want), "bytes differ");
}

/** Waits until nothing is in flight in Triton nor served, or fails after `ms`. */
async function quiet(s: GrpcService = service, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while ((server.inflight > 0 || s.active > 0) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(server.inflight, 0, "requests still in flight in Triton");
  assert.equal(s.active, 0, "calls still served");
}

const tick = () => new Promise((r) => setTimeout(r, 1));

test("a unary call: headers, one message, trailers with grpc-status 0", async () => {
  const data = noise(1000, 1);
  const r = await unary(INFER, encodeInfer(identityRequest(data, "one")));
  assert.equal(r.headers[":status"], 200);
  assert.equal(r.headers["content-type"], "application/grpc+proto");
  assert.equal(r.headers["grpc-accept-encoding"], "identity,deflate,gzip");
  assert.ok(r.trailers, "trailers");
  assert.equal(r.status, 0);
  assert.equal(r.messages.length, 1);
  const m = decodeInfer(r.messages[0]);
  assert.equal(m.id, "one");
  assertSame(outputOf(m), data);
});

test("a message split over many DATA frames, its prefix too, is read whole", async () => {
  const data = noise(100_000, 2);
  const framed = frame(encodeInfer(identityRequest(data)));
  const { reply } = rawCall(INFER, async (s) => {
    // The prefix in two pieces, then the payload in pieces of 997 bytes, each written alone.
    const cuts = [0, 2, 5];
    for (let at = 5 + 997; at < framed.length; at += 997) cuts.push(at);
    cuts.push(framed.length);
    for (let i = 0; i + 1 < cuts.length; i++) {
      s.write(framed.subarray(cuts[i], cuts[i + 1]));
      await tick();
    }
    s.end();
  });
  const r = await reply;
  assert.equal(r.status, 0, r.message);
  assertSame(outputOf(decodeInfer(r.messages[0])), data);
});

test("many messages in one DATA frame on a stream: each answered", async () => {
  const count = 20;
  const sent = Array.from({ length: count }, (_, i) => noise(50 + i * 300, 100 + i));
  const body = Buffer.concat(sent.map((d, i) => frame(encodeInfer(identityRequest(d, `${i}`)))));
  const r = await rawCall(STREAM, (s) => void s.end(body)).reply;
  assert.equal(r.status, 0, r.message);
  assert.equal(r.messages.length, count);
  const seen = new Set<number>();
  for (const bytes of r.messages) {
    const m = decodeStream(bytes);
    assert.equal(m.error_message, "");
    const response = m.infer_response as Msg;
    const i = Number(response.id);
    assert.ok(!seen.has(i));
    seen.add(i);
    assertSame(outputOf(response), sent[i]);
  }
  await quiet();
});

test("8 MiB each way, byte for byte, unary and on a stream (flow control on both sides)", async () => {
  const data = noise(8 * 1024 * 1024, 3);
  const r = await unary(INFER, encodeInfer(identityRequest(data)));
  assert.equal(r.status, 0, r.message);
  assertSame(outputOf(decodeInfer(r.messages[0])), data);
  const two = [data, noise(8 * 1024 * 1024, 4)];
  const body = Buffer.concat(two.map((d, i) => frame(encodeInfer(identityRequest(d, `${i}`)))));
  const s = await rawCall(STREAM, (st) => void st.end(body)).reply;
  assert.equal(s.status, 0, s.message);
  assert.equal(s.messages.length, 2);
  for (const bytes of s.messages) {
    const response = decodeStream(bytes).infer_response as Msg;
    assertSame(outputOf(response), two[Number(response.id)]);
  }
  await quiet();
});

test("500 calls at once on one connection", async () => {
  const live = inference.ServerLive.requestSerialize({}) as Buffer;
  const replies = await Promise.all(
    Array.from(
      { length: 500 },
      (_, i) =>
        i % 2 === 0
          ? unary(LIVE, live)
          : unary(INFER, encodeInfer(identityRequest(noise(64, i), `${i}`))),
    ),
  );
  replies.forEach((r, i) => {
    assert.equal(r.status, 0, `call ${i}: ${r.message}`);
    assert.equal(r.messages.length, 1);
    if (i % 2 === 1) assertSame(outputOf(decodeInfer(r.messages[0])), noise(64, i));
  });
  await quiet();
});

test("a ping is answered", async () => {
  const ms = await new Promise<number>((resolve, reject) =>
    session.ping((e, duration) => (e ? reject(e) : resolve(duration)))
  );
  assert.ok(ms >= 0);
});

test("grpc-timeout: past the deadline the call ends DEADLINE_EXCEEDED; its request ends in Triton", async () => {
  const t0 = Date.now();
  const r = await unary(INFER, encodeInfer(slowRequest()), { "grpc-timeout": "100m" });
  assert.equal(r.status, 4, r.message); // DEADLINE_EXCEEDED
  assert.equal(r.message, "Deadline exceeded");
  assert.ok(Date.now() - t0 < 3000, `${Date.now() - t0} ms`);
  await quiet();
  // A stream: the responses before the deadline, then the status in the trailers.
  const s = await rawCall(STREAM, (st) => {
    st.write(frame(encodeInfer(repeatRequest(Array.from({ length: 50 }, (_, i) => i), 50))));
  }, { "grpc-timeout": "300000u" }).reply;
  assert.equal(s.status, 4, s.message);
  assert.ok(s.trailers, "the status comes in trailers after the responses");
  assert.ok(s.messages.length >= 1 && s.messages.length < 50, `${s.messages.length} responses`);
  await quiet();
  // A deadline not reached changes nothing; a malformed one is INTERNAL.
  const ok = await unary(INFER, encodeInfer(slowRequest()), { "grpc-timeout": "10S" });
  assert.equal(ok.status, 0, ok.message);
  const bad = await unary(LIVE, Buffer.alloc(0), { "grpc-timeout": "1.5S" });
  assert.equal(bad.status, 13);
  assert.match(bad.message!, /Invalid grpc-timeout value "1\.5S"/);
});

test("a client's RST_STREAM ends the call; its request ends in Triton, the connection goes on", async () => {
  await quiet(); // the request counted below is this test's alone
  const { stream, reply } = rawCall(
    INFER,
    (s) => void s.end(frame(encodeInfer(slowRequest()))),
  );
  const deadline = Date.now() + 5000;
  while (server.inflight === 0 && Date.now() < deadline) await tick();
  assert.equal(server.inflight, 1);
  assert.equal(service.active, 1);
  stream.close(http2.constants.NGHTTP2_CANCEL);
  await reply;
  await quiet();
  // The connection goes on.
  assert.equal((await unary(LIVE, Buffer.alloc(0))).status, 0);
});

test("a message compressed in an unknown grpc-encoding is UNIMPLEMENTED, saying grpc-accept-encoding; without one INTERNAL", async () => {
  const r = await rawCall(LIVE, (s) => void s.end(frame(Buffer.alloc(0), 1)), {
    "grpc-encoding": "br",
  }).reply;
  assert.equal(r.status, 12); // UNIMPLEMENTED
  assert.equal(r.trailers, undefined, "trailers-only");
  assert.equal(r.headers["grpc-accept-encoding"], "identity,deflate,gzip");
  assert.equal(r.message, 'Received message compressed with unsupported encoding "br"');
  // An unknown encoding declared, messages not compressed: served.
  assert.equal((await unary(LIVE, Buffer.alloc(0), { "grpc-encoding": "br" })).status, 0);
  // identity declared (or nothing), a message flagged compressed: INTERNAL.
  for (const headers of [{ "grpc-encoding": "identity" }, {}]) {
    const c = await rawCall(LIVE, (s) => void s.end(frame(Buffer.alloc(0), 1)), headers).reply;
    assert.equal(c.status, 13, c.message);
    assert.match(c.message!, /compressed message/);
  }
  // The client's grpc-accept-encoding is no reason to compress (inferResponseCompression is
  // "none" by default, and LIVE is no inference RPC).
  const plain = await unary(LIVE, Buffer.alloc(0), { "grpc-accept-encoding": "gzip,deflate" });
  assert.equal(plain.status, 0);
  assert.equal(plain.headers["grpc-encoding"], undefined);
});

test("a content type not application/grpc is HTTP 415; a method not POST is 405", async () => {
  for (const type of ["application/json", "text/plain"]) {
    const r = await rawCall(LIVE, (s) => void s.end(frame(Buffer.alloc(0))), {
      "content-type": type,
    }).reply;
    assert.equal(r.headers[":status"], 415);
    assert.equal(r.status, undefined);
  }
  const plus = await unary(LIVE, Buffer.alloc(0), { "content-type": "application/grpc+proto" });
  assert.equal(plus.status, 0);
  const get = await rawCall(LIVE, (s) => void s.end(), { ":method": "GET" }).reply;
  assert.equal(get.headers[":status"], 405);
});

test("a unary call with no message or two is UNIMPLEMENTED; a method not served too (trailers-only)", async () => {
  const none = await rawCall(LIVE, (s) => void s.end()).reply;
  assert.equal(none.status, 12);
  assert.match(none.message!, /Received no request message for unary method .*ServerLive/);
  assert.equal(none.trailers, undefined);
  const empty = frame(Buffer.alloc(0));
  const two = await rawCall(LIVE, (s) => void s.end(Buffer.concat([empty, empty]))).reply;
  assert.equal(two.status, 12);
  assert.match(two.message!, /Received a second request message/);
  const missing = await unary("/inference.GRPCInferenceService/Nope", Buffer.alloc(0));
  assert.equal(missing.status, 12);
  assert.match(missing.message!, /does not implement the method/);
  // A stream that ends inside a message.
  const cut = await rawCall(LIVE, (s) => void s.end(frame(Buffer.alloc(10)).subarray(0, 8))).reply;
  assert.equal(cut.status, 13);
});

test("a request message over maxMessageBytes is refused from its prefix; a response over it too", async () => {
  // The default (2 GiB − 1): a prefix saying 4 GiB − 1, no payload sent, answered at once.
  const huge = Buffer.from([0, 0xff, 0xff, 0xff, 0xff]);
  const { stream, reply } = rawCall(INFER, (s) => void s.write(huge));
  const r = await reply;
  assert.equal(r.status, 8); // RESOURCE_EXHAUSTED
  assert.match(
    r.message!,
    /Received message larger than max \(4294967295 vs 2147483647\) \(maxMessageBytes\)/,
  );
  stream.close();
  const LIMIT = 4096;
  const own = await serveGrpc(server, { port: 0, transport: "http2", maxMessageBytes: LIMIT });
  const c = connect(own);
  try {
    const over = await rawCall(
      INFER,
      (s) => void s.end(frame(encodeInfer(identityRequest(noise(LIMIT, 5))))),
      {},
      c,
    ).reply;
    assert.equal(over.status, 8, over.message);
    assert.match(over.message!, /Received message larger than max .*\(maxMessageBytes\)/);
    // A request under the limit whose response is over it (the response holds more fields).
    const request = identityRequest(noise(LIMIT - 120, 6));
    assert.ok(encodeInfer(request).length <= LIMIT);
    const out = await rawCall(INFER, (s) => void s.end(frame(encodeInfer(request))), {}, c).reply;
    assert.equal(out.status, 8, out.message);
    assert.match(out.message!, /Sent message larger than max .*\(maxMessageBytes\)/);
    await quiet(own);
  } finally {
    c.close();
    await own.close();
  }
});

test("grpc-message is percent-encoded (non-ASCII, control characters, %)", async () => {
  const name = "nö\tmodel 100%";
  const r = await unary(
    "/inference.GRPCInferenceService/ModelMetadata",
    inference.ModelMetadata.requestSerialize({ name, version: "" }) as Buffer,
  );
  assert.equal(r.status, 5); // NOT_FOUND
  assert.match(r.rawMessage!, /^[\x20-\x7e]*$/);
  assert.ok(r.rawMessage!.includes("n%C3%B6%09model 100%25"), r.rawMessage);
  assert.ok(r.message!.includes(name), r.message);
});

test("metadata: a restricted API's header is read from the call's headers", async () => {
  const guarded = await serveGrpc(server, {
    port: 0,
    transport: "http2",
    restrictedApis: { health: { header: "Admin-Key", value: "s3cret" } },
  });
  const c = connect(guarded);
  try {
    const call = (headers: http2.OutgoingHttpHeaders) =>
      rawCall(LIVE, (s) => void s.end(frame(Buffer.alloc(0))), headers, c).reply;
    assert.equal((await call({})).status, 14); // UNAVAILABLE
    assert.equal((await call({ "admin-key": "nope" })).status, 14);
    assert.equal((await call({ "admin-key": "s3cret" })).status, 0);
  } finally {
    c.close();
    await guarded.close();
  }
});

test("close() waits for a call in flight, which finishes; new connections are refused", async () => {
  const own = await serveGrpc(server, { port: 0, transport: "http2" });
  const c = connect(own);
  try {
    const { reply } = rawCall(
      INFER,
      (s) => void s.end(frame(encodeInfer(slowRequest()))),
      {},
      c,
    );
    while (own.active === 0) await tick();
    let answered = false;
    const replied = reply.then((r) => {
      answered = true;
      return r;
    });
    await own.close();
    assert.ok(answered, "close() resolved before the call was answered");
    const r = await replied;
    assert.equal(r.status, 0, r.message);
    const late = connect(own);
    const refused = await new Promise<boolean>((resolve) => {
      late.on("error", () => resolve(true));
      late.on("connect", () => resolve(false));
    });
    late.destroy();
    assert.ok(refused, "a connection after close()");
  } finally {
    c.destroy();
  }
  await quiet(own);
});

test("close({ timeoutMs }) ends a call that would never end, and cancels its request", async () => {
  const own = await serveGrpc(server, { port: 0, transport: "http2" });
  const c = connect(own);
  try {
    // A stream the client never ends, its request long (3 s: Triton's repeat backend sends every
    // response even once cancelled, and quiet() below waits for them).
    const { reply } = rawCall(
      STREAM,
      (s) => {
        s.write(frame(encodeInfer(repeatRequest(Array.from({ length: 100 }, (_, i) => i), 30))));
      },
      {},
      c,
    );
    while (server.inflight === 0) await tick();
    const t0 = Date.now();
    await own.close({ timeoutMs: 200 });
    assert.ok(Date.now() - t0 < 5000, `${Date.now() - t0} ms`);
    await reply;
  } finally {
    c.destroy();
  }
  await quiet(own);
});

test("TRITONFFI_GRPC_TRANSPORT picks the transport where the option is not given, else the runtime's default", async () => {
  const before = process.env.TRITONFFI_GRPC_TRANSPORT;
  try {
    delete process.env.TRITONFFI_GRPC_TRANSPORT;
    const byDefault = await serveGrpc(server, { port: 0 });
    // The faster one on each runtime (bench/README.md): http2 on Bun and Node, grpc-js on Deno.
    assert.equal(byDefault.transport, runtimeName() === "deno" ? "grpc-js" : "http2");
    await byDefault.close();
    process.env.TRITONFFI_GRPC_TRANSPORT = "http2";
    const a = await serveGrpc(server, { port: 0 });
    assert.equal(a.transport, "http2");
    await a.close();
    const b = await serveGrpc(server, { port: 0, transport: "grpc-js" });
    assert.equal(b.transport, "grpc-js");
    await b.close();
    process.env.TRITONFFI_GRPC_TRANSPORT = "quic";
    await assert.rejects(
      serveGrpc(server, { port: 0 }),
      (e: unknown) =>
        e instanceof TritonError && e.code === "INVALID_ARG" &&
        /TRITONFFI_GRPC_TRANSPORT must be "grpc-js" or "http2", not the string "quic"/.test(
          e.message,
        ),
    );
  } finally {
    if (before === undefined) delete process.env.TRITONFFI_GRPC_TRANSPORT;
    else process.env.TRITONFFI_GRPC_TRANSPORT = before;
  }
});

test("a port taken is UNAVAILABLE", async () => {
  await assert.rejects(
    serveGrpc(server, { port: service.port, transport: "http2" }),
    (e: unknown) =>
      e instanceof TritonError && e.code === "UNAVAILABLE" &&
      e.message.startsWith(`cannot listen on 127.0.0.1:${service.port}`),
  );
});

test("an IPv6 hostname: its address in brackets", async (t) => {
  let six: GrpcService;
  try {
    six = await serveGrpc(server, { hostname: "::1", port: 0, transport: "http2" });
  } catch (e) {
    return t.skip(`no IPv6 loopback here (${e instanceof Error ? e.message : e})`);
  }
  try {
    assert.equal(six.address, `[::1]:${six.port}`);
    const c = connect(six);
    const r = await rawCall(LIVE, (s) => void s.end(frame(Buffer.alloc(0))), {}, c).reply;
    c.close();
    assert.equal(r.status, 0);
  } finally {
    await six.close();
  }
});
