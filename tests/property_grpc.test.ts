/**
 * Property test of the gRPC front end's request reading (fast-check): generated `ModelInferRequest`
 * messages — typed `contents` or `raw_input_contents` (sometimes both), right and wrong shapes, data
 * types and sizes — sent to `serveGrpc()` on identity models, to each transport in turn. Each is
 * either answered with the tensor echoed exactly in `raw_output_contents`, or fails
 * INVALID_ARGUMENT — never INTERNAL or UNKNOWN; afterwards nothing stays in flight.
 *
 * Fixed seed; `FUZZ_RUNS=n` (default 100) and `FUZZ_SEED=s` run more or other cases.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after, before } from "node:test";
import * as grpc from "@grpc/grpc-js";
import fc from "fast-check";
import { type GrpcService, type GrpcTransportName, serveGrpc } from "../grpc.ts";
import { serviceDefinitions } from "../serving/kserve/grpc/definitions.ts";
import { skippingAll } from "./support/test.ts";
import { type Dtype, DTYPES, ELEMENTS, rawBytes } from "./support/fuzz_tensors.ts";
import { GRPC_SKIP, idle, sharedServer, stopShared } from "./support/env.ts";

// Every test here serves gRPC (see GRPC_SKIP).
const test = skippingAll(GRPC_SKIP);

const RUNS = Number(process.env.FUZZ_RUNS ?? 100);
const SEED = Number(process.env.FUZZ_SEED ?? 20261202);
const encoder = new TextEncoder();

/** The typed-contents field and values of `values`. */
function typed(dtype: Dtype, values: unknown[]): Record<string, unknown[]> {
  switch (dtype) {
    case "INT32":
      return { int_contents: values };
    case "UINT8":
      return { uint_contents: values };
    case "INT64":
      return { int64_contents: values };
    case "FP32":
      return { fp32_contents: values };
    case "BOOL":
      return { bool_contents: values };
    case "BYTES":
      return { bytes_contents: (values as string[]).map((s) => encoder.encode(s)) };
  }
}

/** Bytes per element of the fixed-size data types. */
const ELEMENT_BYTES: Partial<Record<Dtype, number>> = {
  INT32: 4,
  UINT8: 1,
  INT64: 8,
  FP32: 4,
  BOOL: 1,
};

const cases = fc.constantFrom(...DTYPES).chain((dtype) =>
  fc.record({
    dtype: fc.constant(dtype),
    values: fc.array(ELEMENTS[dtype] as fc.Arbitrary<unknown>, { minLength: 1, maxLength: 5 }),
    form: fc.constantFrom("typed", "raw", "both", "neither"),
    shapeDelta: fc.constantFrom(0, 0, 0, 1, -1),
    datatype: fc.constantFrom("right", "right", "right", "wrong", "junk"),
    rawDelta: fc.constantFrom(0, 0, 0, 1),
  })
);

const definitions = serviceDefinitions();
const Client = grpc.makeGenericClientConstructor(definitions.inference, "GRPCInferenceService");
const TRANSPORTS: readonly GrpcTransportName[] = ["grpc-js", "http2"];
/** A service on each transport, with a client each; the cases go to them in turn. */
type GrpcClient = grpc.Client & Record<string, (...args: unknown[]) => unknown>;
const served: { service: GrpcService; client: GrpcClient }[] = [];
before(async () => {
  if (GRPC_SKIP) return;
  for (const transport of TRANSPORTS) {
    const service = await serveGrpc(await sharedServer(), { port: 0, transport });
    const client = new Client(service.address, grpc.credentials.createInsecure());
    served.push({ service, client: client as GrpcClient });
  }
});
after(async () => {
  for (const { service, client } of served) {
    client.close();
    await service.close();
  }
  await stopShared();
});

let sent = 0;

function infer(request: Record<string, unknown>): Promise<
  { ok: Record<string, unknown> } | {
    error: grpc.ServiceError;
  }
> {
  const { client } = served[sent++ % served.length];
  return new Promise((resolve) => {
    client.ModelInfer(
      request,
      (e: grpc.ServiceError | null, r: Record<string, unknown>) =>
        resolve(e ? { error: e } : { ok: r }),
    );
  });
}

test("generated ModelInfer requests are echoed exactly or fail INVALID_ARGUMENT", async () => {
  let echoed = 0;
  let refused = 0;
  await fc.assert(
    fc.asyncProperty(cases, async (c) => {
      const n = c.values.length;
      const model = c.dtype === "BYTES" ? "identity_bytes" : `identity_${c.dtype.toLowerCase()}`;
      const datatype = c.datatype === "right"
        ? c.dtype
        : c.datatype === "wrong"
        ? (c.dtype === "INT32" ? "FP32" : "INT32")
        : "FLOAT";
      const bytes = rawBytes(c.dtype, c.values);
      const rawSent = c.rawDelta ? new Uint8Array([...bytes, 0]) : bytes;
      const request: Record<string, unknown> = {
        model_name: model,
        inputs: [{
          name: "INPUT0",
          datatype,
          shape: [1, n + c.shapeDelta],
          ...(c.form === "typed" || c.form === "both"
            ? { contents: typed(c.dtype, c.values) }
            : {}),
        }],
        ...(c.form === "raw" || c.form === "both" ? { raw_input_contents: [rawSent] } : {}),
      };
      // No data at all is a well-formed empty tensor where the shape holds no element; raw data
      // fits when its size is the shape's (an extra zero byte is one more UINT8 or BOOL element).
      const size = ELEMENT_BYTES[c.dtype];
      const rawFits = size === undefined
        ? c.shapeDelta === 0 && c.rawDelta === 0
        : (n + c.shapeDelta) * size === rawSent.length;
      const wellFormed = c.datatype === "right" && c.form !== "both" &&
        (c.form === "neither"
          ? n + c.shapeDelta === 0
          : c.form === "typed"
          ? c.shapeDelta === 0
          : rawFits);
      const echo = c.form === "neither" ? [] : Array.from(c.form === "raw" ? rawSent : bytes);
      const r = await infer(request);
      if ("ok" in r) {
        assert.ok(wellFormed, `accepted: ${JSON.stringify(c)}`);
        const out = (r.ok.raw_output_contents as Uint8Array[])[0];
        assert.deepEqual(Array.from(out ?? []), echo);
        echoed++;
      } else {
        assert.equal(
          r.error.code,
          grpc.status.INVALID_ARGUMENT,
          `${r.error.code} ${r.error.details}: ${JSON.stringify(c)}`,
        );
        assert.ok(r.error.details.length > 0);
        assert.ok(!wellFormed, `refused: ${r.error.details}`);
        refused++;
      }
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
  assert.ok(echoed > 0 && refused > 0, `echoed ${echoed}, refused ${refused}`);
  await idle(await sharedServer());
  assert.equal((await sharedServer()).inflight, 0);
});
