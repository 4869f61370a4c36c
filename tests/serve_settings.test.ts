/**
 * The logging and trace extensions over HTTP (`serve()`) and gRPC (`serveGrpc()`, both
 * transports): GET/update/GET round trips, bad values answered with the same code and message on
 * both protocols, the trace file written for the sampled requests only (Triton's format), the
 * restricted categories "logging" and "trace", and the extensions reported.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { skippingAll, test } from "./support/test.ts";
import { type Server, TritonError } from "../mod.ts";
import { HTTP_STATUS, serve, TraceManager } from "../serve.ts";
import { GRPC_STATUS, type GrpcTransportName, serveGrpc } from "../grpc.ts";
import { serviceDefinitions } from "../serving/kserve/grpc/definitions.ts";
import { checkTracing, type TraceServeOptions } from "../serving/kserve/trace_manager.ts";
import { GRPC_SKIP, idle, startServer } from "./support/env.ts";
import { int32s, type Msg } from "./support/grpc_requests.ts";

const definitions = serviceDefinitions();
const Client = grpc.makeGenericClientConstructor(definitions.inference, "GRPCInferenceService");
type GrpcClient = grpc.Client & Record<string, (...args: unknown[]) => unknown>;
const TRANSPORTS: readonly GrpcTransportName[] = ["grpc-js", "http2"];

/** Where the core was built without tracing (TRITON_ENABLE_TRACING off), the UNSUPPORTED error
 * it gives: the tests of trace settings and trace files skip there (tests/trace.test.ts checks
 * that error). */
async function tracingMissing(): Promise<TritonError | undefined> {
  const probe = await startServer({ modelControlMode: "explicit" });
  try {
    checkTracing(probe);
    return undefined;
  } catch (e) {
    if (e instanceof TritonError && e.code === "UNSUPPORTED") return e;
    throw e;
  } finally {
    await probe.stop();
  }
}
const noTracing = await tracingMissing();
const needTracing = {
  skip: noTracing !== undefined && `this core has no tracing (${noTracing.message})`,
};

/** A test over HTTP and gRPC together (see GRPC_SKIP). */
const grpcTest = skippingAll(GRPC_SKIP);

let server: Server;
let dir: string;
before(async () => {
  server = await startServer({ modelControlMode: "explicit", startupModels: ["identity_int32"] });
  dir = mkdtempSync(join(tmpdir(), "tritonffi-trace-"));
});
after(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** An HTTP service, a gRPC one on `transport` and clients of both; closed by `close()`. */
async function services(
  transport: GrpcTransportName,
  options: { trace?: TraceServeOptions | TraceManager; restrictedApis?: Record<string, unknown> } =
    {},
) {
  const http = await serve(server, { port: 0, ...options } as never);
  const g = await serveGrpc(server, { port: 0, transport, ...options } as never);
  const client = new Client(g.address, grpc.credentials.createInsecure()) as GrpcClient;
  const call = (name: string, request: Msg, metadata = new grpc.Metadata()): Promise<Msg> =>
    new Promise((resolve, reject) =>
      client[name](
        request,
        metadata,
        (e: grpc.ServiceError | null, r: Msg) => (e ? reject(e) : resolve(r)),
      )
    );
  const fetchJson = async (path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const r = await fetch(http.url + path, {
      method: body === undefined ? "GET" : "POST",
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, json: await r.json() as Record<string, unknown> };
  };
  return {
    http,
    grpc: g,
    call,
    fetchJson,
    close: async () => {
      client.close();
      await Promise.all([http.close(), g.close()]);
    },
  };
}

/** A LogSettingsResponse as plain values. */
function logValues(m: Msg): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(m.settings as Record<string, Msg>)) {
    out[k] = v.bool_param ?? v.uint32_param ?? v.string_param;
  }
  return out;
}

/** A TraceSettingResponse as HTTP answers it (the level a list, the others strings). */
function traceValues(m: Msg): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(m.settings as Record<string, { value: string[] }>)) {
    out[k] = k === "trace_level" ? v.value : v.value.join(",");
  }
  return out;
}

for (const transport of TRANSPORTS) {
  grpcTest(`${transport}: log settings, GET/update/GET over HTTP and gRPC`, async () => {
    const s = await services(transport);
    try {
      const first = await s.fetchJson("/v2/logging");
      assert.equal(first.status, 200);
      assert.deepEqual(first.json, {
        log_file: "",
        log_info: server.logEnabled("info"),
        log_warning: server.logEnabled("warn"),
        log_error: true,
        log_verbose_level: 0,
        log_format: "default",
      });
      assert.deepEqual(logValues(await s.call("LogSettings", {})), first.json);

      const updated = await s.fetchJson("/v2/logging", {
        log_error: false,
        log_verbose_level: 2,
        log_format: "ISO8601",
      });
      assert.equal(updated.status, 200, JSON.stringify(updated.json));
      assert.equal(updated.json.log_error, false);
      assert.equal(updated.json.log_verbose_level, 2);
      assert.equal(updated.json.log_format, "ISO8601");
      // Applied to Triton's logger at once.
      assert.equal(server.logEnabled("error"), false);
      assert.equal(server.logEnabled("verbose"), true);
      assert.deepEqual(logValues(await s.call("LogSettings", {})), updated.json);

      const back = logValues(
        await s.call("LogSettings", {
          settings: {
            log_error: { bool_param: true },
            log_verbose_level: { uint32_param: 0 },
            log_format: { string_param: "default" },
            log_info: {}, // no choice: no change
          },
        }),
      );
      assert.deepEqual(back, first.json);
      assert.equal(server.logEnabled("error"), true);
      assert.equal(server.logEnabled("verbose"), false);
      assert.deepEqual((await s.fetchJson("/v2/logging")).json, first.json);
    } finally {
      await s.close();
    }
  });

  grpcTest(
    `${transport}: trace settings, global and per model, GET/update/GET, null clears`,
    needTracing,
    async () => {
      const file = join(dir, `settings-${transport}.json`);
      const s = await services(transport, { trace: { file } });
      // Each service has its own trace settings: the same steps over each protocol.
      type Update = Record<string, string | string[] | null>;
      const overHttp = {
        get: async (model = "") =>
          (await s.fetchJson(model ? `/v2/models/${model}/trace/setting` : "/v2/trace/setting"))
            .json,
        post: async (update: Update, model = "") =>
          (await s.fetchJson(
            model ? `/v2/models/${model}/trace/setting` : "/v2/trace/setting",
            update,
          ))
            .json,
      };
      const overGrpc = {
        get: async (model = "") => traceValues(await s.call("TraceSetting", { model_name: model })),
        post: async (update: Update, model = "") => {
          const settings: Record<string, { value: string[] }> = {};
          for (const [k, v] of Object.entries(update)) {
            settings[k] = { value: v === null ? [] : typeof v === "string" ? [v] : v };
          }
          return traceValues(await s.call("TraceSetting", { model_name: model, settings }));
        },
      };
      try {
        for (const p of [overHttp, overGrpc]) {
          const global = await p.get();
          assert.deepEqual(global, {
            trace_level: ["OFF"],
            trace_rate: "1000",
            trace_count: "-1",
            log_frequency: "0",
            trace_file: file,
            trace_mode: "triton",
          });
          assert.equal((await p.post({ trace_rate: "7" })).trace_rate, "7");
          // A model's own level and count; its rate follows the global one.
          const m = await p.post(
            { trace_level: ["TIMESTAMPS", "TENSORS"], trace_count: "3" },
            "identity_int32",
          );
          assert.deepEqual(m.trace_level, ["TIMESTAMPS", "TENSORS"]);
          assert.equal(m.trace_rate, "7");
          assert.equal(m.trace_count, "3");
          assert.deepEqual(await p.get("identity_int32"), m);
          // The global settings are unchanged by it; a new global rate reaches the model.
          assert.deepEqual((await p.get()).trace_level, ["OFF"]);
          await p.post({ trace_rate: ["9"] });
          assert.equal((await p.get("identity_int32")).trace_rate, "9");
          // Cleared (null over HTTP, an empty list over gRPC): the model follows the global ones.
          await p.post({ trace_level: null }, "identity_int32");
          assert.deepEqual(await p.post({ trace_count: null }, "identity_int32"), await p.get());
          // The global rate cleared: back to the service's option.
          assert.deepEqual(await p.post({ trace_rate: null }), global);
        }
      } finally {
        await s.close();
      }
    },
  );

  grpcTest(
    `${transport}: bad settings, the same code and message over HTTP and gRPC`,
    needTracing,
    async () => {
      const s = await services(transport, { trace: { file: join(dir, `bad-${transport}.json`) } });
      const noFile = await serve(server, { port: 0 });
      try {
        const rows: {
          http: [string, unknown];
          rpc: [string, Msg];
          code: keyof typeof GRPC_STATUS;
          says: RegExp;
        }[] = [
          {
            http: ["/v2/logging", { log_info: "yes" }],
            rpc: ["LogSettings", { settings: { log_info: { string_param: "yes" } } }],
            code: "INVALID_ARG",
            says: /^expect boolean for 'log_info', got the string "yes"$/,
          },
          {
            http: ["/v2/logging", { log_verbose_level: 2 ** 31 }],
            rpc: ["LogSettings", { settings: { log_verbose_level: { uint32_param: 2 ** 31 } } }],
            code: "INVALID_ARG",
            says:
              /^expect an integer in \[0, 2147483647\] for 'log_verbose_level', got the number 2147483648$/,
          },
          {
            http: ["/v2/logging", { log_format: "xml" }],
            rpc: ["LogSettings", { settings: { log_format: { string_param: "xml" } } }],
            code: "INVALID_ARG",
            says: /^invalid argument for log_format, got: xml \(default or ISO8601\)$/,
          },
          {
            http: ["/v2/logging", { log_file: "/tmp/x.log" }],
            rpc: ["LogSettings", { settings: { log_file: { string_param: "/tmp/x.log" } } }],
            code: "UNSUPPORTED",
            says: /^log file location can not be updated through network protocol$/,
          },
          {
            http: ["/v2/logging", { log_colour: true }],
            rpc: ["LogSettings", { settings: { log_colour: { bool_param: true } } }],
            code: "INVALID_ARG",
            says: /^unknown log setting 'log_colour' \(one of log_file, /,
          },
          {
            http: ["/v2/trace/setting", { trace_rate: "abc" }],
            rpc: ["TraceSetting", { settings: { trace_rate: { value: ["abc"] } } }],
            code: "INVALID_ARG",
            says: /^Unable to parse 'trace_rate', got: abc$/,
          },
          {
            http: ["/v2/trace/setting", { trace_rate: ["1", "2"] }],
            rpc: ["TraceSetting", { settings: { trace_rate: { value: ["1", "2"] } } }],
            code: "INVALID_ARG",
            says: /^expect only 1 value for 'trace_rate'$/,
          },
          {
            http: ["/v2/trace/setting", { trace_count: "-2" }],
            rpc: ["TraceSetting", { settings: { trace_count: { value: ["-2"] } } }],
            code: "INVALID_ARG",
            says: /^Unable to parse 'trace_count'. Expecting value >= -1, got: -2$/,
          },
          {
            http: ["/v2/trace/setting", { log_frequency: "4294967296" }],
            rpc: ["TraceSetting", { settings: { log_frequency: { value: ["4294967296"] } } }],
            code: "INVALID_ARG",
            says: /^Unable to parse 'log_frequency', value is out of range \[ 0, 4294967295 \]/,
          },
          {
            http: ["/v2/trace/setting", { trace_level: ["OFF", "TIMESTAMPS"] }],
            rpc: ["TraceSetting", { settings: { trace_level: { value: ["OFF", "TIMESTAMPS"] } } }],
            code: "INVALID_ARG",
            says: /^Expect only one trace level 'OFF' is specified$/,
          },
          {
            http: ["/v2/trace/setting", { trace_file: "/tmp/t.json" }],
            rpc: ["TraceSetting", { settings: { trace_file: { value: ["/tmp/t.json"] } } }],
            code: "UNSUPPORTED",
            says: /^trace file location can not be updated through network protocol$/,
          },
          {
            http: ["/v2/trace/setting", { trace_level: ["TIMESTAMPS"], trace_rate: "0" }],
            rpc: ["TraceSetting", {
              settings: { trace_level: { value: ["TIMESTAMPS"] }, trace_rate: { value: ["0"] } },
            }],
            code: "INVALID_ARG",
            says: /^Attempting to set invalid trace setting :sample rate must be non-zero$/,
          },
          {
            http: ["/v2/models/no_such_model/trace/setting", {}],
            rpc: ["TraceSetting", { model_name: "no_such_model" }],
            code: "INVALID_ARG",
            says: /^Request for unknown model : no_such_model$/,
          },
        ];
        for (const row of rows) {
          const r = await s.fetchJson(...row.http);
          assert.equal(
            r.status,
            HTTP_STATUS[row.code],
            `${row.http[0]}: ${JSON.stringify(r.json)}`,
          );
          assert.match(r.json.error as string, row.says);
          await assert.rejects(s.call(...row.rpc), (e: grpc.ServiceError) => {
            assert.equal(e.code, GRPC_STATUS[row.code], e.details);
            assert.equal(e.details, r.json.error);
            return true;
          });
        }
        // Nothing was applied by the refused updates.
        assert.equal((await s.fetchJson("/v2/logging")).json.log_format, "default");
        // A service given no trace file cannot turn tracing on.
        const r = await fetch(`${noFile.url}/v2/trace/setting`, {
          method: "POST",
          body: JSON.stringify({ trace_level: ["TIMESTAMPS"] }),
        });
        assert.equal(r.status, 400);
        assert.match(
          (await r.json()).error,
          /^Attempting to set invalid trace setting :trace file name is not given$/,
        );
      } finally {
        await noFile.close();
        await s.close();
      }
    },
  );
}

/** The objects of a trace file (a JSON array). */
const readTrace = (path: string): Record<string, unknown>[] =>
  JSON.parse(readFileSync(path, "utf8"));

/** Trace ids by request id, and the activity names of each trace id. */
function traced(objects: Record<string, unknown>[]) {
  const requests = new Map<string, number>();
  const activities = new Map<number, string[]>();
  for (const o of objects) {
    if (typeof o.model_name === "string") {
      assert.equal(o.model_name, "identity_int32");
      requests.set(o.request_id as string, o.id as number);
    }
    for (const t of (o.timestamps ?? []) as { name: string; ns: number }[]) {
      activities.set(o.id as number, [...(activities.get(o.id as number) ?? []), t.name]);
      assert.ok(t.ns > 0);
    }
    if (o.activity) {
      activities.set(o.id as number, [
        ...(activities.get(o.id as number) ?? []),
        o.activity as string,
      ]);
    }
  }
  return { requests, activities };
}

test(
  "HTTP: every trace_rate-th request traced into trace_file (at close with log_frequency 0)",
  needTracing,
  async () => {
    const file = join(dir, "http.json");
    const http = await serve(server, { port: 0, trace: { file, level: "TIMESTAMPS", rate: 2 } });
    try {
      for (let i = 1; i <= 5; i++) {
        const r = await fetch(`${http.url}/v2/models/identity_int32/infer`, {
          method: "POST",
          body: JSON.stringify({
            id: `r${i}`,
            inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, 4], data: [i, 2, 3, 4] }],
          }),
        });
        assert.equal(r.status, 200, await r.text());
      }
      await idle(server);
    } finally {
      await http.close();
    }
    const { requests, activities } = traced(readTrace(file));
    assert.deepEqual([...requests.keys()].sort(), ["r2", "r4"]);
    for (const id of requests.values()) {
      const names = activities.get(id)!;
      assert.ok(names.includes("REQUEST_START"), names.join());
      assert.ok(names.includes("REQUEST_END"), names.join());
      assert.ok(names.includes("COMPUTE_START"), names.join());
    }
  },
);

for (const transport of TRANSPORTS) {
  grpcTest(
    `${transport}: trace_count bounds the traces; log_frequency writes trace_file.<n>`,
    needTracing,
    async () => {
      const file = join(dir, `grpc-${transport}.json`);
      const s = await services(transport, {
        trace: { file, level: ["TIMESTAMPS", "TENSORS"], rate: 1, count: 3, logFrequency: 2 },
      });
      try {
        for (let i = 1; i <= 4; i++) {
          await s.call("ModelInfer", {
            model_name: "identity_int32",
            id: `g${i}`,
            inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, 4] }],
            raw_input_contents: [int32s([i, 2, 3, 4])],
          });
        }
        await idle(server);
        assert.equal(traceValues(await s.call("TraceSetting", {})).trace_count, "0");
      } finally {
        await s.close();
      }
      const files = readdirSync(dir).filter((f) => f.startsWith(`grpc-${transport}.json`)).sort();
      assert.deepEqual(files, [`grpc-${transport}.json.0`, `grpc-${transport}.json.1`]);
      const first = traced(readTrace(`${file}.0`));
      const second = traced(readTrace(`${file}.1`));
      // Traces are saved in the order they end: a trace can end after the next request's (its end
      // comes after the response, late on Bun), so which two share the first file may vary.
      assert.equal(first.requests.size, 2, [...first.requests.keys()].join());
      assert.equal(second.requests.size, 1, [...second.requests.keys()].join());
      assert.deepEqual([...first.requests.keys(), ...second.requests.keys()].sort(), [
        "g1",
        "g2",
        "g3",
      ]);
      const g1 = first.requests.get("g1") ?? second.requests.get("g1")!;
      const names = (first.activities.get(g1) ?? second.activities.get(g1))!;
      assert.ok(names.includes("REQUEST_START") && names.includes("REQUEST_END"), names.join());
      // Tensors: the inputs as queued, with their data (no data on Bun, whose callbacks come late).
      const tensor = readTrace(`${file}.0`).find((o) => o.activity === "TENSOR_QUEUE_INPUT") as
        | { tensor: { dtype: string; data: string } }
        | undefined;
      if (tensor !== undefined) assert.equal(tensor.tensor.dtype, "INT32");
      if (tensor !== undefined && tensor.tensor.data !== "") {
        assert.match(tensor.tensor.data, /^[123],2,3,4$/);
      }
    },
  );
}

grpcTest("restricted categories 'logging' and 'trace'; the extensions reported", async () => {
  const rule = { header: "admin-key", value: "s3cret" };
  const s = await services("http2", {
    trace: { file: join(dir, "restricted.json") },
    restrictedApis: { logging: rule, trace: rule },
  });
  try {
    for (
      const path of ["/v2/logging", "/v2/trace/setting", "/v2/models/identity_int32/trace/setting"]
    ) {
      const denied = await s.fetchJson(path);
      assert.equal(denied.status, 403);
      assert.equal(denied.json.error, "This API is restricted, expecting header 'admin-key'");
      assert.equal((await s.fetchJson(path, undefined, { "admin-key": "s3cret" })).status, 200);
    }
    for (const rpc of ["LogSettings", "TraceSetting"]) {
      await assert.rejects(s.call(rpc, {}), (e: grpc.ServiceError) => {
        assert.equal(e.code, grpc.status.UNAVAILABLE);
        return true;
      });
      const md = new grpc.Metadata();
      md.set("admin-key", "s3cret");
      await s.call(rpc, {}, md);
    }
    const core = server.metadata().extensions;
    const served = (await s.fetchJson("/v2")).json.extensions as string[];
    for (const e of ["logging", "trace"]) assert.equal(served.includes(e), core.includes(e), e);
    // A core that traces lists "trace", as the real one does: the front ends report it too.
    assert.equal(served.includes("trace"), noTracing === undefined, "trace where the core traces");
    assert.deepEqual((await s.call("ServerMetadata", {})).extensions, served);
  } finally {
    await s.close();
  }
});

for (const transport of TRANSPORTS) {
  grpcTest(
    `${transport}: one TraceManager for both front ends, as tritonserver's: settings shared, one file, closed by its owner`,
    needTracing,
    async () => {
      const file = join(dir, `shared-${transport}.json`);
      const trace = new TraceManager(server, { file });
      const s = await services(transport, { trace });
      const infer = (id: string) =>
        fetch(`${s.http.url}/v2/models/identity_int32/infer`, {
          method: "POST",
          body: JSON.stringify({
            id,
            inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, 4], data: [1, 2, 3, 4] }],
          }),
        }).then((r) => r.text());
      try {
        // Changed over HTTP, read over gRPC, and the other way round.
        await s.fetchJson("/v2/trace/setting", { trace_rate: "1", trace_level: ["TIMESTAMPS"] });
        const overGrpc = traceValues(await s.call("TraceSetting", {}));
        assert.equal(overGrpc.trace_rate, "1");
        assert.deepEqual(overGrpc.trace_level, ["TIMESTAMPS"]);
        await s.call("TraceSetting", { settings: { trace_count: { value: ["3"] } } });
        assert.equal((await s.fetchJson("/v2/trace/setting")).json.trace_count, "3");
        assert.deepEqual(trace.settings().trace_count, ["3"]);
        // Both front ends sample from the same count: two over HTTP, one over gRPC, then none.
        await infer("h1");
        await infer("h2");
        await s.call("ModelInfer", {
          model_name: "identity_int32",
          id: "g1",
          inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, 4] }],
          raw_input_contents: [int32s([1, 2, 3, 4])],
        });
        await infer("h3");
        await idle(server);
      } finally {
        await s.close();
      }
      // The services leave the manager they were given open: a new one traces with it.
      assert.deepEqual(trace.settings().trace_rate, ["1"]);
      const again = await serve(server, { port: 0, trace });
      try {
        const r = await fetch(`${again.url}/v2/trace/setting`, {
          method: "POST",
          body: JSON.stringify({ trace_count: "1" }),
        });
        assert.equal(r.status, 200, await r.text());
        const sampled = await fetch(`${again.url}/v2/models/identity_int32/infer`, {
          method: "POST",
          body: JSON.stringify({
            id: "h4",
            inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, 4], data: [1, 2, 3, 4] }],
          }),
        });
        assert.equal(sampled.status, 200, await sampled.text());
        await idle(server);
      } finally {
        await again.close();
      }
      await trace.close(); // ends the file's JSON array
      const { requests } = traced(readTrace(file));
      assert.deepEqual([...requests.keys()].sort(), ["g1", "h1", "h2", "h4"]);
    },
  );
}

test("the trace option: a TraceManager or plain options, nothing else", async () => {
  await assert.rejects(serve(server, { port: 0, trace: 7 } as never), /trace/);
  if (!GRPC_SKIP) {
    await assert.rejects(serveGrpc(server, { port: 0, trace: "x" } as never), /trace/);
  }
});
