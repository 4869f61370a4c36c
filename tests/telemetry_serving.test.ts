/**
 * The front ends' OpenTelemetry spans, recorded with the SDK's in-memory exporter: the caller's
 * W3C trace context over HTTP headers and gRPC metadata, a server span per call with
 * OpenTelemetry's HTTP and RPC attributes, a `message` event per response of a stream, the
 * OpenAI front end's generative-AI span, and its latency histograms on /metrics.
 */
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { skippingAll } from "./support/test.ts";
import { serveGrpc } from "../grpc.ts";
import { serviceDefinitions } from "../serving/kserve/grpc/definitions.ts";
import { GRPC_SKIP, SERVE_WORKERS, startServer } from "./support/env.ts";
import { int32s, type Msg, repeatRequest } from "./support/grpc_requests.ts";
import { postJson, sseEvents, startServing, stopServing } from "./support/serve.ts";
import { startOpenAI } from "./support/openai.ts";
import { only, recording } from "./support/telemetry.ts";

// The spans of a service on several threads: the calling thread's SDK records its own calls only
// (docs/serving.md, "Workers"), so which calls it sees depends on the thread that took them.
const test = skippingAll(
  SERVE_WORKERS > 1 && "spans are recorded where an SDK is registered: the calling thread only",
);

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

const childOf = (child: ReadableSpan, parent: ReadableSpan) =>
  child.parentSpanContext?.spanId === parent.spanContext().spanId &&
  child.spanContext().traceId === parent.spanContext().traceId;

/** `span` continues the caller's trace of {@link TRACEPARENT}. */
function joinsCaller(span: ReadableSpan): void {
  assert.equal(span.spanContext().traceId, TRACE_ID);
  assert.equal(span.parentSpanContext?.spanId, PARENT_ID);
  assert.equal(span.parentSpanContext?.isRemote, true);
}

const messages = (s: ReadableSpan, type = "SENT") =>
  s.events.filter((e) => e.name === "message" && e.attributes?.["message.type"] === type);

test("KServe HTTP: infer joins the caller's trace; the span has the route, status and sizes", async () => {
  const s = await startServing();
  try {
    await recording(async ({ spans }) => {
      const body = JSON.stringify({
        inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, 2], data: [3, 4] }],
      });
      const r = await fetch(`${s.url}/v2/models/identity_int32/infer`, {
        method: "POST",
        body,
        headers: { traceparent: TRACEPARENT, tracestate: "vendor=value" },
      });
      assert.equal(r.status, 200);
      const text = await r.text();
      const all = await spans((x) =>
        x.some((y) => y.name === "InferRequest") && x.some((y) => y.kind === SpanKind.SERVER)
      );
      const http = only(all, "POST /v2/models/{name}/infer");
      assert.equal(http.kind, SpanKind.SERVER);
      assert.equal(http.instrumentationScope.name, "tritonffi");
      joinsCaller(http);
      assert.equal(http.spanContext().traceState?.get("vendor"), "value");
      const url = new URL(s.url);
      assert.deepEqual(http.attributes, {
        "http.request.method": "POST",
        "http.route": "/v2/models/{name}/infer",
        "url.path": "/v2/models/identity_int32/infer",
        "url.scheme": "http",
        "server.address": url.hostname,
        "server.port": Number(url.port),
        "user_agent.original": http.attributes["user_agent.original"],
        "http.request.body.size": new TextEncoder().encode(body).length,
        "http.response.status_code": 200,
      });
      assert.ok(text.includes("OUTPUT0"));
      assert.equal(http.status.code, SpanStatusCode.UNSET);
      const infer = only(all, "InferRequest");
      assert.ok(childOf(infer, http), "the inference under the call's span");
      assert.equal(infer.attributes["triton.model_name"], "identity_int32");
    });
  } finally {
    await stopServing(s);
  }
});

test("KServe HTTP: generate_stream is one span with a message event per response", async () => {
  const s = await startServing();
  try {
    await recording(async ({ spans }) => {
      const r = await postJson(
        `${s.url}/v2/models/repeat_int32/generate_stream`,
        { IN: [10, 20, 30], DELAY: [0, 0, 0], WAIT: 0 },
        { traceparent: TRACEPARENT },
      );
      assert.equal(r.status, 200);
      const events = sseEvents(await r.text());
      assert.equal(events.length, 3);
      const all = await spans((x) =>
        x.some((y) => y.kind === SpanKind.SERVER) && x.some((y) => y.name === "InferRequest")
      );
      const http = only(all, "POST /v2/models/{name}/generate_stream");
      joinsCaller(http);
      const sent = messages(http);
      assert.equal(sent.length, 3);
      assert.deepEqual(sent.map((e) => e.attributes?.["message.id"]), [1, 2, 3]);
      for (const e of sent) assert.ok(Number(e.attributes?.["message.uncompressed_size"]) > 6);
      assert.equal(http.attributes["tritonffi.stream.messages"], 3);
      const sizes = sent.map((e) => Number(e.attributes?.["message.uncompressed_size"]));
      assert.equal(http.attributes["http.response.body.size"], sizes.reduce((a, b) => a + b));
      // The span lasts until the stream's last event.
      const last = sent.at(-1)!.time;
      assert.ok(
        http.endTime[0] > last[0] || (http.endTime[0] === last[0] && http.endTime[1] >= last[1]),
      );
      const infer = only(all, "InferRequest");
      assert.ok(childOf(infer, http));
      assert.equal(infer.attributes["triton.response_count"], 3);
    });
  } finally {
    await stopServing(s);
  }
});

test("KServe HTTP: an unknown model is a 404 span without an error status; no parent, a root", async () => {
  const s = await startServing();
  try {
    await recording(async ({ spans }) => {
      const r = await postJson(`${s.url}/v2/models/nope/infer`, { inputs: [] });
      assert.equal(r.status, 404);
      await r.body?.cancel();
      const [http] = await spans((x) => x.some((y) => y.kind === SpanKind.SERVER));
      assert.equal(http.name, "POST /v2/models/{name}/infer");
      assert.equal(http.parentSpanContext, undefined);
      assert.equal(http.attributes["http.response.status_code"], 404);
      assert.equal(http.status.code, SpanStatusCode.UNSET);
    });
  } finally {
    await stopServing(s);
  }
});

const definitions = serviceDefinitions();
const Client = grpc.makeGenericClientConstructor(definitions.inference, "GRPCInferenceService");

for (const transport of ["grpc-js", "http2"] as const) {
  test(`gRPC (${transport}): ModelInfer and ModelStreamInfer join the caller's trace`, {
    skip: GRPC_SKIP,
  }, async () => {
    const server = await startServer({ modelControlMode: "explicit", startupModels: ["*"] });
    const service = await serveGrpc(server, { port: 0, transport });
    const client = new Client(service.address, grpc.credentials.createInsecure()) as
      & grpc.Client
      & Record<string, (...args: unknown[]) => unknown>;
    try {
      await recording(async ({ spans }) => {
        const metadata = () => {
          const m = new grpc.Metadata();
          m.set("traceparent", TRACEPARENT);
          return m;
        };
        const identity = {
          model_name: "identity_int32",
          inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, 1] }],
          raw_input_contents: [int32s([5])],
        };
        await new Promise<Msg>((resolve, reject) =>
          client.ModelInfer(
            identity,
            metadata(),
            (e: grpc.ServiceError | null, r: Msg) => (e ? reject(e) : resolve(r)),
          )
        );
        const got = await new Promise<Msg[]>((resolve, reject) => {
          const out: Msg[] = [];
          const call = client.ModelStreamInfer(metadata()) as grpc.ClientDuplexStream<Msg, Msg>;
          call.on("data", (m: Msg) => out.push(m));
          call.on("error", reject);
          call.on("end", () => resolve(out));
          call.write(repeatRequest([4, 5, 6], 0, { id: "a" }));
          call.end();
        });
        assert.equal(got.length, 3);
        const all = await spans((x) =>
          x.filter((y) => y.kind === SpanKind.SERVER).length === 2 &&
          x.filter((y) => y.name === "InferRequest").length === 2
        );
        const unary = only(all, "inference.GRPCInferenceService/ModelInfer");
        const stream = only(all, "inference.GRPCInferenceService/ModelStreamInfer");
        for (const span of [unary, stream]) {
          joinsCaller(span);
          assert.equal(span.kind, SpanKind.SERVER);
          assert.equal(span.attributes["rpc.system"], "grpc");
          assert.equal(span.attributes["rpc.service"], "inference.GRPCInferenceService");
        }
        assert.equal(unary.attributes["rpc.method"], "ModelInfer");
        assert.equal(stream.attributes["rpc.method"], "ModelStreamInfer");
        assert.equal(unary.attributes["rpc.grpc.status_code"], 0);
        assert.equal(messages(unary).length, 1);
        assert.ok(Number(messages(unary)[0].attributes?.["message.uncompressed_size"]) > 0);
        assert.equal(stream.attributes["rpc.grpc.status_code"], 0);
        assert.equal(messages(stream, "RECEIVED").length, 1);
        assert.equal(messages(stream).length, 3);
        const infers = all.filter((y) => y.name === "InferRequest");
        assert.ok(infers.some((i) => childOf(i, stream)), "the stream's inference under its span");
        assert.ok(infers.some((i) => childOf(i, unary)), "ModelInfer's inference under its span");
      });
    } finally {
      client.close();
      await service.close();
      await server.stop();
    }
  });
}

test("OpenAI: a streamed completion: HTTP span, gen_ai span, message events, latency on /metrics", async () => {
  const o = await startOpenAI();
  try {
    await recording(async ({ spans }) => {
      const r = await fetch(`${o.url}/v1/completions`, {
        method: "POST",
        headers: { traceparent: TRACEPARENT, "content-type": "application/json" },
        body: JSON.stringify({
          model: "tiny_llm",
          prompt: "Hello there",
          max_tokens: 4,
          temperature: 0.5,
          stream: true,
          stream_options: { include_usage: true },
        }),
      });
      assert.equal(r.status, 200);
      const chunks = (await r.text()).split("\n\n").filter((e) => e.startsWith("data: "));
      const usage = JSON.parse(chunks.at(-2)!.slice(6)).usage;
      const reasons = chunks.slice(0, -1).map((c) => JSON.parse(c.slice(6)))
        .flatMap((c) => c.choices.map((x: { finish_reason: string | null }) => x.finish_reason))
        .filter((x: string | null) => x !== null);
      const all = await spans((x) =>
        x.some((y) => y.kind === SpanKind.SERVER) && x.some((y) => y.name === "InferRequest")
      );
      const http = only(all, "POST /v1/completions");
      joinsCaller(http);
      assert.ok(messages(http).length >= 3, `${messages(http).length} message events`);
      const genai = only(all, "text_completion tiny_llm");
      assert.ok(childOf(genai, http), "gen_ai span under the HTTP span");
      const a = genai.attributes;
      assert.equal(a["gen_ai.operation.name"], "text_completion");
      assert.equal(a["gen_ai.request.model"], "tiny_llm");
      assert.equal(a["gen_ai.response.model"], "tiny_llm");
      assert.equal(a["gen_ai.request.max_tokens"], 4);
      assert.equal(a["gen_ai.request.temperature"], 0.5);
      assert.equal(reasons.length, 1);
      assert.deepEqual(a["gen_ai.response.finish_reasons"], reasons);
      assert.equal(a["gen_ai.usage.input_tokens"], usage.prompt_tokens);
      assert.equal(a["gen_ai.usage.output_tokens"], usage.completion_tokens);
      const ttft = Number(a["gen_ai.server.time_to_first_token"]);
      assert.ok(ttft > 0 && ttft < 10, `ttft ${ttft}`);
      assert.deepEqual(genai.events.map((e) => e.name), ["gen_ai.first_token"]);
      const infer = only(all, "InferRequest");
      assert.ok(childOf(infer, genai), "the inference under the gen_ai span");

      const metrics = await (await fetch(`${o.url}/metrics`)).text();
      const value = (name: string) => {
        const m = metrics.match(new RegExp(`^${name}\\{model_name="tiny_llm"\\} (\\S+)$`, "m"));
        return m ? Number(m[1]) : undefined;
      };
      assert.equal(value("tritonffi:time_to_first_token_seconds_count"), 1);
      assert.equal(value("tritonffi:e2e_request_latency_seconds_count"), 1);
      assert.equal(value("tritonffi:time_per_output_token_seconds_count"), 1);
      assert.ok(value("tritonffi:e2e_request_latency_seconds_sum")! >= ttft);
      assert.match(metrics, /^# TYPE tritonffi:time_to_first_token_seconds histogram$/m);
      assert.match(
        metrics,
        /^tritonffi:time_to_first_token_seconds_bucket\{model_name="tiny_llm",le="\+Inf"\} 1$/m,
      );
      // Triton's own metrics are still there.
      assert.match(metrics, /^nv_inference_request_success/m);
    });
  } finally {
    await o.service.close();
    await o.server.stop();
  }
});

test("OpenAI: a client that leaves a stream ends its spans, each with a cancelled event", async () => {
  const o = await startOpenAI();
  try {
    await recording(async ({ spans }) => {
      const prompt = Array.from({ length: 100 }, (_, i) => `w${i}`).join(" ");
      const r = await fetch(`${o.url}/v1/completions`, {
        method: "POST",
        body: JSON.stringify({
          model: "words",
          prompt,
          max_tokens: 100,
          delay_ms: 50,
          stream: true,
        }),
      });
      const reader = r.body!.getReader();
      await reader.read();
      await reader.cancel();
      const all = await spans((x) =>
        x.some((y) => y.name === "POST /v1/completions") &&
        x.some((y) => y.name === "text_completion words") &&
        x.some((y) => y.name === "InferRequest")
      );
      const http = only(all, "POST /v1/completions");
      const genai = only(all, "text_completion words");
      assert.ok(http.events.some((e) => e.name === "cancelled"), "HTTP span: cancelled");
      assert.ok(genai.events.some((e) => e.name === "cancelled"), "gen_ai span: cancelled");
      assert.equal(genai.attributes["gen_ai.response.finish_reasons"], undefined);
      const infer = only(all, "InferRequest");
      assert.ok(childOf(infer, genai));
      assert.equal(infer.status.code, SpanStatusCode.ERROR);
      assert.equal(infer.attributes["error.type"], "CANCELLED");
    });
  } finally {
    await o.service.close();
    await o.server.stop();
  }
});

test("OpenAI: an embeddings call is an embeddings span with its input tokens and dimensions", async () => {
  const o = await startOpenAI();
  try {
    await recording(async ({ spans }) => {
      const r = await fetch(`${o.url}/v1/embeddings`, {
        method: "POST",
        headers: { traceparent: TRACEPARENT, "content-type": "application/json" },
        body: JSON.stringify({ model: "embed", input: "hello there world" }),
      });
      assert.equal(r.status, 200);
      const body = await r.json();
      const all = await spans((x) =>
        x.some((y) => y.kind === SpanKind.SERVER) && x.some((y) => y.name === "InferRequest")
      );
      const http = only(all, "POST /v1/embeddings");
      joinsCaller(http);
      const genai = only(all, "embeddings embed");
      assert.ok(childOf(genai, http));
      assert.equal(genai.attributes["gen_ai.operation.name"], "embeddings");
      assert.equal(genai.attributes["gen_ai.request.model"], "embed");
      assert.equal(genai.attributes["gen_ai.usage.input_tokens"], body.usage.prompt_tokens);
      assert.equal(
        genai.attributes["gen_ai.embeddings.dimension.count"],
        body.data[0].embedding.length,
      );
      assert.ok(childOf(only(all, "InferRequest"), genai));
    });
  } finally {
    await o.service.close();
    await o.server.stop();
  }
});
