/**
 * `serveGrpc()`: the KServe v2 gRPC protocol over a running server, driven by a `@grpc/grpc-js`
 * client — health, metadata, config, statistics, the repository, ModelInfer with typed and raw
 * contents, ModelStreamInfer on a decoupled model (final flags, the empty final response, errors
 * on the stream and with `triton_grpc_error`, cancellation), restricted APIs, and close() — each
 * on both transports (`grpc-js` and `http2`).
 */
import assert from "node:assert/strict";
import { after, before } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { skippingAll, test } from "./support/test.ts";
import { type Server, TritonError } from "../mod.ts";
import { type GrpcService, type GrpcTransportName, serveGrpc } from "../grpc.ts";
import { serviceDefinitions } from "../serving/kserve/grpc/definitions.ts";
import { GRPC_SKIP, idle, startServer } from "./support/env.ts";
import { int32s, type Msg, repeatRequest } from "./support/grpc_requests.ts";

const definitions = serviceDefinitions();
const Client = grpc.makeGenericClientConstructor(definitions.inference, "GRPCInferenceService");
const HealthClient = grpc.makeGenericClientConstructor(definitions.health, "Health");

const TRANSPORTS: readonly GrpcTransportName[] = ["grpc-js", "http2"];

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

/** The tests, against a service on `transport`. */
function suite(transport: GrpcTransportName): void {
  const test = skippingAll(GRPC_SKIP);
  let service: GrpcService;
  let client: grpc.Client & Record<string, (...args: unknown[]) => unknown>;

  starts.push(async () => {
    if (GRPC_SKIP) return;
    service = await serveGrpc(server, { port: 0, transport });
    assert.equal(service.transport, transport);
    client = new Client(service.address, grpc.credentials.createInsecure()) as typeof client;
  });
  closes.push(async () => {
    client?.close();
    await service?.close();
  });

  /** A unary call; rejects with the gRPC error. */
  function call(name: string, request: Msg, metadata = new grpc.Metadata()): Promise<Msg> {
    return new Promise((resolve, reject) => {
      client[name](
        request,
        metadata,
        (e: grpc.ServiceError | null, r: Msg) => (e ? reject(e) : resolve(r)),
      );
    });
  }

  function rejectsWith(p: Promise<unknown>, code: number, message: RegExp): Promise<void> {
    return assert.rejects(p, (e: grpc.ServiceError) => {
      assert.equal(e.code, code, e.message);
      assert.match(e.details, message);
      return true;
    });
  }

  test(`${transport}: health, metadata, readiness and Health/Check`, async () => {
    assert.deepEqual(await call("ServerLive", {}), { live: true });
    assert.deepEqual(await call("ServerReady", {}), { ready: true });
    assert.deepEqual(await call("ModelReady", { name: "identity_int32", version: "" }), {
      ready: true,
    });
    assert.deepEqual(await call("ModelReady", { name: "add_sub", version: "1" }), { ready: true });
    const meta = await call("ServerMetadata", {});
    assert.equal(typeof meta.name, "string");
    assert.ok(!(meta.extensions as string[]).includes("system_shared_memory"));
    const model = await call("ModelMetadata", { name: "add_sub", version: "" });
    assert.equal(model.name, "add_sub");
    assert.deepEqual(model.versions, ["1"]);
    assert.deepEqual(
      (model.inputs as Msg[]).map((i) => [i.name, i.datatype, i.shape]),
      [["INPUT0", "FP32", ["16"]], ["INPUT1", "FP32", ["16"]]],
    );
    await rejectsWith(
      call("ModelMetadata", { name: "no_such_model", version: "" }),
      grpc.status.NOT_FOUND,
      /no_such_model/,
    );
    const health = new HealthClient(service.address, grpc.credentials.createInsecure()) as
      & grpc.Client
      & Record<string, (...args: unknown[]) => unknown>;
    const status = await new Promise<Msg>((resolve, reject) =>
      health.Check({ service: "" }, (e: Error | null, r: Msg) => (e ? reject(e) : resolve(r)))
    );
    health.close();
    assert.equal(status.status, 1); // SERVING
  });

  test(`${transport}: ModelConfig carries batching, decoupled, inputs and outputs; statistics and the index`, async () => {
    const { config } = await call("ModelConfig", { name: "identity_int32", version: "" }) as {
      config: Msg;
    };
    assert.equal(config.name, "identity_int32");
    assert.equal(config.max_batch_size, 8);
    assert.equal(config.backend, "identity");
    const input = (config.input as Msg[])[0];
    assert.equal(input.name, "INPUT0");
    assert.equal(input.data_type, 8); // TYPE_INT32
    assert.deepEqual(input.dims, ["-1"]);
    const repeat = (await call("ModelConfig", { name: "repeat_int32", version: "" }) as {
      config: Msg;
    }).config;
    assert.deepEqual(repeat.model_transaction_policy, { decoupled: true });
    const stats = await call("ModelStatistics", { name: "identity_int32", version: "" });
    assert.equal((stats.model_stats as Msg[])[0].name, "identity_int32");
    const index = await call("RepositoryIndex", { repository_name: "", ready: true });
    const names = (index.models as Msg[]).map((m) => m.name);
    assert.ok(names.includes("identity_int32") && names.includes("repeat_int32"), names.join());
    assert.ok((index.models as Msg[]).every((m) => m.state === "READY"));
  });

  test(`${transport}: ModelInfer with typed and raw contents; outputs always raw; errors mapped`, async () => {
    const typed = await call("ModelInfer", {
      model_name: "identity_int32",
      id: "typed",
      inputs: [{
        name: "INPUT0",
        datatype: "INT32",
        shape: [1, 3],
        contents: { int_contents: [7, -8, 9] },
      }],
    });
    assert.equal(typed.id, "typed");
    assert.equal(typed.model_name, "identity_int32");
    assert.equal(typed.model_version, "1");
    assert.deepEqual((typed.outputs as Msg[]).map((o) => [o.name, o.datatype, o.shape]), [
      ["OUTPUT0", "INT32", ["1", "3"]],
    ]);
    // The identity backend's response parameters, each of its type.
    assert.deepEqual(typed.parameters, {
      param0: { string_param: "an example string parameter" },
      param1: { int64_param: "42" },
      param2: { bool_param: false },
      param3: { double_param: 123.123 },
    });
    const raw = (typed.raw_output_contents as Uint8Array[])[0];
    assert.deepEqual(Array.from(new Int32Array(new Uint8Array(raw).buffer)), [7, -8, 9]);

    const bytes = await call("ModelInfer", {
      model_name: "identity_bytes",
      inputs: [{ name: "INPUT0", datatype: "BYTES", shape: [1, 2] }],
      raw_input_contents: [new Uint8Array([1, 0, 0, 0, 0x61, 2, 0, 0, 0, 0xc3, 0xa9])],
    });
    assert.deepEqual(
      Array.from((bytes.raw_output_contents as Uint8Array[])[0]),
      [1, 0, 0, 0, 0x61, 2, 0, 0, 0, 0xc3, 0xa9],
    );

    await rejectsWith(
      call("ModelInfer", {
        model_name: "identity_int32",
        inputs: [{
          name: "INPUT0",
          datatype: "INT32",
          shape: [1, 1],
          contents: { int_contents: [1] },
        }],
        raw_input_contents: [int32s([1])],
      }),
      grpc.status.INVALID_ARGUMENT,
      /contents field must not be specified when using raw_input_contents for input 'INPUT0'/,
    );
    await rejectsWith(
      call("ModelInfer", {
        model_name: "identity_fp16",
        inputs: [{ name: "INPUT0", datatype: "FP16", shape: [1, 1], contents: {} }],
      }),
      grpc.status.INVALID_ARGUMENT,
      /FP16 data must be sent in raw_input_contents/,
    );
    await rejectsWith(
      call("ModelInfer", {
        model_name: "identity_int32",
        parameters: { triton_unknown: { bool_param: true } },
        inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, 1] }],
        raw_input_contents: [int32s([1])],
      }),
      grpc.status.INVALID_ARGUMENT,
      /reserved for Triton: 'triton_unknown'/,
    );
    await rejectsWith(
      call("ModelInfer", {
        model_name: "no_such_model",
        inputs: [],
      }),
      grpc.status.NOT_FOUND,
      /no_such_model/,
    );
  });

  /** Opens a stream, writes `requests`, ends it, and collects what comes back. */
  function stream(requests: Msg[], metadata = new grpc.Metadata()): Promise<Msg[]> {
    return new Promise((resolve, reject) => {
      const got: Msg[] = [];
      const s = client.ModelStreamInfer(metadata) as grpc.ClientDuplexStream<Msg, Msg>;
      s.on("data", (m: Msg) => got.push(m));
      s.on("error", reject);
      s.on("end", () => resolve(got));
      for (const r of requests) s.write(r);
      s.end();
    });
  }

  const outOf = (m: Msg) => {
    const r = m.infer_response as Msg;
    const raw = (r.raw_output_contents as Uint8Array[])[0];
    return raw === undefined ? undefined : new Int32Array(new Uint8Array(raw).buffer)[0];
  };
  const finalOf = (m: Msg) =>
    ((m.infer_response as Msg).parameters as Record<string, Msg>).triton_final_response?.bool_param;

  test(`${transport}: ModelStreamInfer: many responses per request, triton_final_response, the empty final`, async () => {
    const got = await stream([
      repeatRequest([4, 5, 6], 0, { id: "a" }),
      repeatRequest([7], 0, {
        id: "b",
        parameters: { triton_enable_empty_final_response: { bool_param: true } },
      }),
    ]);
    const a = got.filter((m) => (m.infer_response as Msg).id === "a");
    const b = got.filter((m) => (m.infer_response as Msg).id === "b");
    assert.deepEqual(a.map(outOf), [4, 5, 6]);
    assert.ok(a.every((m) => m.error_message === ""));
    // repeat sends its FINAL flag without a response: the empty final response only where asked.
    assert.deepEqual(a.map(finalOf), [false, false, false]);
    assert.deepEqual(b.map(outOf), [7, undefined]);
    assert.deepEqual(b.map(finalOf), [false, true]);
  });

  test(`${transport}: ModelStreamInfer: an error is a message and the stream goes on, unless triton_grpc_error`, async () => {
    const got = await stream([
      { model_name: "no_such_model", id: "bad", inputs: [] },
      repeatRequest([1], 0, { id: "good" }),
    ]);
    const bad = got.find((m) => (m.infer_response as Msg).id === "bad")!;
    assert.match(bad.error_message as string, /no_such_model/);
    assert.deepEqual(got.filter((m) => (m.infer_response as Msg).id === "good").map(outOf), [1]);

    const metadata = new grpc.Metadata();
    metadata.set("triton_grpc_error", "true");
    await assert.rejects(
      stream([{ model_name: "no_such_model", inputs: [] }], metadata),
      (e: grpc.ServiceError) => e.code === grpc.status.NOT_FOUND,
    );
  });

  test(`${transport}: ModelStreamInfer: the client's cancel cancels its requests in Triton`, async () => {
    const s = client.ModelStreamInfer() as grpc.ClientDuplexStream<Msg, Msg>;
    const got: Msg[] = [];
    const first = new Promise<void>((resolve) =>
      s.on("data", (m: Msg) => (got.push(m), resolve()))
    );
    s.on("error", () => {});
    // 3 s of responses at most (Triton's repeat backend sends them all even once cancelled).
    s.write(repeatRequest(Array.from({ length: 50 }, (_, i) => i), 60));
    await first;
    s.cancel();
    await idle(server, 10_000);
    assert.equal(server.inflight, 0);
    assert.ok(got.length < 50, `${got.length} responses`);
  });

  test(`${transport}: a client process killed mid-stream: its request is cancelled in Triton`, async () => {
    const { spawn } = await import("node:child_process");
    const { fileURLToPath } = await import("node:url");
    const root = fileURLToPath(new URL("..", import.meta.url));
    const node = `${root}node_modules/.bin/node`;
    const child = spawn(node, ["tests/support/grpc_stream_client.ts", service.address], {
      cwd: root,
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no first response")), 20_000);
      child.stdout.on("data", (d: Buffer) => {
        if (d.toString().includes("first")) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    assert.ok(server.inflight >= 1);
    child.kill("SIGKILL");
    await exited;
    await idle(server, 15_000);
    assert.equal(server.inflight, 0);
    assert.equal(service.active, 0);
    assert.deepEqual(await call("ServerLive", {}), { live: true }); // and the service goes on
  });

  test(`${transport}: restricted APIs fail UNAVAILABLE without their header`, async () => {
    const guarded = await serveGrpc(server, {
      port: 0,
      transport,
      restrictedApis: { "model-repository": { header: "admin-key", value: "s3cret" } },
    });
    const c = new Client(guarded.address, grpc.credentials.createInsecure()) as typeof client;
    const index = (metadata: grpc.Metadata) =>
      new Promise<Msg>((resolve, reject) =>
        c.RepositoryIndex({}, metadata, (e: Error | null, r: Msg) => (e ? reject(e) : resolve(r)))
      );
    try {
      await assert.rejects(index(new grpc.Metadata()), (e: grpc.ServiceError) => {
        assert.equal(e.code, grpc.status.UNAVAILABLE);
        assert.match(e.details, /expecting header 'admin-key'/);
        return true;
      });
      const ok = new grpc.Metadata();
      ok.set("admin-key", "s3cret");
      assert.ok(Array.isArray((await index(ok)).models));
      const live = await new Promise<Msg>((resolve, reject) =>
        c.ServerLive({}, (e: Error | null, r: Msg) => (e ? reject(e) : resolve(r)))
      );
      assert.deepEqual(live, { live: true });
    } finally {
      c.close();
      await guarded.close();
    }
  });

  test(`${transport}: close() lets a stream finish; with a timeout it ends it and cancels its request`, async () => {
    const own = await serveGrpc(server, { port: 0, transport });
    const c = new Client(own.address, grpc.credentials.createInsecure()) as typeof client;
    const s = c.ModelStreamInfer() as grpc.ClientDuplexStream<Msg, Msg>;
    const first = new Promise<void>((resolve) => s.on("data", () => resolve()));
    const ended = new Promise<void>((resolve) => {
      s.on("error", () => resolve());
      s.on("end", () => resolve());
    });
    // 3 s of responses: Triton's repeat backend sends them all even once cancelled, well within
    // idle()'s 10 s below (at 100 x 100 ms it took the whole budget on a loaded machine).
    s.write(repeatRequest(Array.from({ length: 100 }, (_, i) => i), 30));
    await first;
    assert.equal(own.active, 1);
    const t0 = Date.now();
    await own.close({ timeoutMs: 200 });
    assert.ok(Date.now() - t0 < 5000);
    await ended;
    c.close();
    await idle(server, 10_000);
    assert.equal(server.inflight, 0);
    await assert.rejects(own.close({ timeoutMs: -1 }), /timeoutMs must be a number/);
    await assert.rejects(
      own.close({ timeout: 200 } as never),
      /unknown field 'timeout' in close\(\)'s options \(give timeoutMs \(milliseconds\) instead\)/,
    );
  });

  test(`${transport}: an RPC not served, and registering shared memory without regions, are UNIMPLEMENTED`, async () => {
    for (const name of ["NoSuchRpc", "CudaSharedMemoryRegister", "SystemSharedMemoryRegister"]) {
      const method = {
        ...definitions.inference.ServerLive,
        path: `/inference.GRPCInferenceService/${name}`,
      };
      const Other = grpc.makeGenericClientConstructor({ [name]: method }, "Other");
      const other = new Other(service.address, grpc.credentials.createInsecure()) as
        & grpc.Client
        & Record<string, (...args: unknown[]) => unknown>;
      await assert.rejects(
        new Promise((resolve, reject) =>
          other[name]({}, (e: Error | null, r: Msg) => (e ? reject(e) : resolve(r)))
        ),
        (e: grpc.ServiceError) => e.code === grpc.status.UNIMPLEMENTED,
      );
      other.close();
    }
  });

  test(`${transport}: a message over maxMessageBytes fails RESOURCE_EXHAUSTED naming it; under it is exact`, async () => {
    const LIMIT = 64 * 1024;
    const own = await serveGrpc(server, { port: 0, transport, maxMessageBytes: LIMIT });
    const c = new Client(own.address, grpc.credentials.createInsecure(), {
      "grpc.max_send_message_length": -1,
    }) as typeof client;
    const infer = (n: number) => {
      const data = Int32Array.from({ length: n }, (_, i) => i * 7 - 3);
      const request = {
        model_name: "identity_int32",
        inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, n] }],
        raw_input_contents: [new Uint8Array(data.buffer)],
      };
      return new Promise<[Int32Array, Msg]>((resolve, reject) =>
        c.ModelInfer(request, (e: Error | null, r: Msg) => (e ? reject(e) : resolve([data, r])))
      );
    };
    try {
      const [sent, answer] = await infer(LIMIT / 8);
      const out = (answer.raw_output_contents as Uint8Array[])[0];
      assert.equal(Buffer.compare(out, new Uint8Array(sent.buffer)), 0);
      await assert.rejects(infer(LIMIT / 4 + 1), (e: grpc.ServiceError) => {
        assert.equal(e.code, grpc.status.RESOURCE_EXHAUSTED, e.message);
        assert.match(e.details, /larger than max .*\(maxMessageBytes\)/);
        return true;
      });
      assert.deepEqual(await call("ServerLive", {}), { live: true });
    } finally {
      c.close();
      await own.close();
    }
  });
}

for (const transport of TRANSPORTS) suite(transport);

test("bad options are INVALID_ARG", async () => {
  await assert.rejects(serveGrpc(server, { port: 70000 }), /port must be an integer/);
  await assert.rejects(serveGrpc(server, { hostname: "" }), /hostname must be a non-empty/);
  await assert.rejects(
    serveGrpc(server, { restrictedApis: { nope: { header: "a", value: "b" } } as never }),
    /unknown restricted API category 'nope'/,
  );
  for (const bad of [-1, 1.5, 2 ** 31, "1"]) {
    await assert.rejects(
      serveGrpc(server, { maxMessageBytes: bad as number }),
      (e: unknown) =>
        e instanceof TritonError && e.code === "INVALID_ARG" && /maxMessageBytes/.test(e.message),
    );
  }
  for (const bad of ["h3", "", 2]) {
    await assert.rejects(
      serveGrpc(server, { transport: bad as GrpcTransportName }),
      (e: unknown) =>
        e instanceof TritonError && e.code === "INVALID_ARG" &&
        /^transport must be "grpc-js" or "http2", not the /.test(e.message),
    );
  }
});
