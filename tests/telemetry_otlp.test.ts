/**
 * The spans of an inference exported over OTLP/HTTP by the SDK's own exporter
 * (`@opentelemetry/exporter-trace-otlp-http`, its default JSON encoding) to a collector endpoint
 * this test serves, which decodes what arrives.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { test } from "./support/test.ts";
import { collect, startServer } from "./support/env.ts";
import { recording } from "./support/telemetry.ts";

/** A span as OTLP's JSON encoding carries it (the fields read here). */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: { key: string; value: Record<string, unknown> }[];
  events?: { name: string; timeUnixNano: string | number }[];
}

interface Export {
  readonly path: string;
  readonly contentType: string;
  readonly scope: string;
  readonly service: unknown;
  readonly spans: OtlpSpan[];
}

function body(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    request.on("data", (c: Uint8Array) => chunks.push(c));
    request.on("end", () => resolve(new TextDecoder().decode(concat(chunks))));
    request.on("error", reject);
  });
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  if (value === undefined) return undefined;
  const v = value.stringValue ?? value.intValue ?? value.doubleValue ?? value.boolValue;
  return typeof v === "string" && "intValue" in value ? Number(v) : v;
};

test("an inference's spans reach an OTLP/HTTP collector, parentage and Triton's events intact", async (t) => {
  const received: Export[] = [];
  const collector = createServer(async (request, response) => {
    const json = JSON.parse(await body(request));
    for (const resource of json.resourceSpans ?? []) {
      const service = resource.resource?.attributes?.find((a: { key: string }) =>
        a.key === "service.name"
      )?.value?.stringValue;
      for (const scope of resource.scopeSpans ?? []) {
        received.push({
          path: request.url ?? "",
          contentType: String(request.headers["content-type"]),
          scope: scope.scope?.name,
          service,
          spans: scope.spans ?? [],
        });
      }
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end("{}");
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  const { port } = collector.address() as AddressInfo;
  const server = await startServer({
    modelControlMode: "explicit",
    startupModels: ["identity_int32"],
  });
  try {
    const exporter = new OTLPTraceExporter({ url: `http://127.0.0.1:${port}/v1/traces` });
    await recording(async ({ spans }) => {
      await trace.getTracer("test").startActiveSpan("caller", async (caller) => {
        await collect(
          server.model("identity_int32").infer({
            id: "over-otlp",
            inputs: { INPUT0: { dtype: "INT32", shape: [1, 1], data: new Int32Array([9]) } },
          }),
        );
        caller.end();
      });
      const local = await spans((x) => x.some((s) => s.name === "InferRequest"));
      const deadline = Date.now() + 10_000;
      while (received.flatMap((e) => e.spans).length < local.length && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 10));
      }
    }, [exporter]);
    const all = received.flatMap((e) => e.spans);
    const byName = new Map(all.map((s) => [s.name, s]));
    assert.ok(received.every((e) => e.path === "/v1/traces"));
    assert.ok(received.every((e) => e.contentType.startsWith("application/json")));
    const caller = byName.get("caller")!;
    const infer = byName.get("InferRequest")!;
    assert.ok(infer, `InferRequest among ${[...byName.keys()]}`);
    assert.equal(received.find((e) => e.spans.includes(infer))?.scope, "tritonffi");
    assert.equal(infer.traceId, caller.traceId);
    assert.equal(infer.parentSpanId, caller.spanId);
    assert.equal(attribute(infer, "triton.request_id"), "over-otlp");
    assert.equal(attribute(infer, "triton.model_name"), "identity_int32");
    const model = byName.get("identity_int32");
    const compute = byName.get("compute");
    if (model === undefined || compute === undefined) {
      t.skip?.("this core reports no trace activities (built without tracing)");
      return;
    }
    assert.equal(model.parentSpanId, infer.spanId);
    assert.equal(compute.parentSpanId, model.spanId);
    assert.equal(attribute(model, "triton.model_version"), 1);
    assert.deepEqual(model.events?.map((e) => e.name), [
      "REQUEST_START",
      "QUEUE_START",
      "REQUEST_END",
    ]);
    const times = (s: OtlpSpan) => [
      BigInt(s.startTimeUnixNano),
      ...(s.events ?? []).map((e) => BigInt(e.timeUnixNano)),
      BigInt(s.endTimeUnixNano),
    ];
    for (const s of [model, compute]) {
      const ts = times(s);
      for (let i = 1; i < ts.length; i++) assert.ok(ts[i] >= ts[i - 1], `${s.name}: ${ts}`);
    }
    assert.ok(BigInt(compute.startTimeUnixNano) >= BigInt(model.startTimeUnixNano));
    assert.ok(BigInt(model.endTimeUnixNano) <= BigInt(infer.endTimeUnixNano));
  } finally {
    await server.stop();
    await new Promise((resolve) => collector.close(resolve));
  }
});
