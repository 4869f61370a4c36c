/**
 * ModelStreamInfer: many inference requests on one bidirectional stream, each answered with all
 * its responses (a decoupled model's included), every one marked `triton_final_response`; an
 * error goes back as `error_message` and the stream goes on, unless the call carries the
 * `triton_grpc_error` header, which ends it with the error's status.
 *
 * @module
 */
import { classifiedOutputs, respondingModelBatches } from "../classification.ts";
import { versionOf } from "../operations.ts";
import type { RpcContext } from "./rpc.ts";
import {
  emptyFinalMessage,
  type GrpcInferRequest,
  inferResponseMessage,
  readInferRequest,
} from "./infer_messages.ts";
import { inferWithSharedMemory, type RequestSharedMemory } from "../request_shared_memory.ts";
import { statusOf } from "./status.ts";
import { type DuplexCall, type DuplexHandler, Status } from "./transport.ts";

/** Resolves once `stream`'s write buffer has drained, or the stream closed, failed or was
 * cancelled (nothing left to wait for then) — at once where it has already. */
function whenDrained(stream: DuplexCall): Promise<void> {
  // A stream destroyed or ending says it needs no drain: its "close" may have been emitted.
  if (stream.destroyed || stream.writableNeedDrain === false) return Promise.resolve();
  return new Promise((resolve) => {
    const events = ["drain", "close", "error", "cancelled"] as const;
    const done = () => {
      for (const event of events) stream.off(event, done);
      resolve();
    };
    for (const event of events) stream.on(event, done);
  });
}

/** The ModelStreamInfer handler over `ctx`. */
export function modelStreamInfer(ctx: RpcContext): DuplexHandler {
  const { server, calls } = ctx;
  const type = ctx.root.lookupType("inference.ModelStreamInferResponse");
  /** Encodes a response at once, while the response whose outputs it may view is held. */
  const encode = (message: object): Uint8Array => type.encode(message).finish();
  return (call: DuplexCall) => {
    const denied = ctx.denied("inference", call);
    if (denied !== undefined) {
      call.emit("error", { code: Status.UNAVAILABLE, details: denied });
      return;
    }
    const controller = calls.begin();
    const running = new Set<Promise<void>>();
    /** Once no request of the stream runs, the call is over (idempotent). */
    let finishing: Promise<void> | undefined;
    const finish = () =>
      finishing ??= (async () => {
        while (running.size > 0) await Promise.allSettled([...running]);
        calls.end(controller);
      })();
    const abort = () => {
      if (!calls.has(controller)) return; // the stream ended: grpc-js still emits "cancelled"
      controller.abort(new Error("the client cancelled the stream"));
      void finish();
    };
    call.on("cancelled", abort);
    /** Resolves when the stream's write buffer drains, or it ends; one wait shared by all the
     * stream's requests. */
    let draining: Promise<void> | undefined;
    const drained = () =>
      draining ??= whenDrained(call).finally(() => {
        draining = undefined;
      });
    const endsOnError = call.metadata.get("triton_grpc_error").length > 0;
    let failed = false;
    const fail = (e: unknown) => {
      if (failed) return;
      failed = true;
      controller.abort(new Error("the stream ended with an error"));
      call.emit("error", statusOf(e));
    };
    const one = async (message: GrpcInferRequest) => {
      let shm: RequestSharedMemory | undefined;
      let submitted = false;
      try {
        const read = readInferRequest(message, ctx.regions);
        const { request, emptyFinal } = read;
        shm = read.sharedMemory;
        const model = server.model(message.model_name, versionOf(message.model_version));
        // The regions are held until Triton is done with the request and the responses are
        // disposed (releaseOutputs below); outputs in them are written in place by Triton.
        const responses = inferWithSharedMemory(model, {
          ...request,
          signal: controller.signal,
          trace: ctx.traces.sample(message.model_name),
        }, shm);
        submitted = true;
        let sawFinal = false;
        const inShm = (output: string) => read.sharedMemory.isOutput(output);
        for await (const r of responses) {
          let flowing: boolean;
          try {
            if (r.final) sawFinal = true;
            read.sharedMemory.writeOutputs(r);
            const outputs = classifiedOutputs(
              r,
              read.classification,
              () => respondingModelBatches(server, r),
            );
            flowing = call.write(encode({
              error_message: "",
              infer_response: inferResponseMessage(r, r.final, inShm, outputs),
            }));
          } finally {
            r.dispose();
          }
          // A client reading slower than the model answers: the next response waits in the
          // binding (and in Triton) until the stream drains, instead of piling up here.
          if (!flowing) await drained();
        }
        if (!sawFinal && emptyFinal) {
          call.write({
            error_message: "",
            infer_response: emptyFinalMessage(
              { name: message.model_name, version: versionOf(message.model_version) },
              message.id,
            ),
          });
        }
      } catch (e) {
        // Not submitted: nothing of the request reads the regions.
        if (!submitted) shm?.release();
        if (controller.signal.aborted) return;
        if (endsOnError) return fail(e);
        call.write({
          error_message: statusOf(e).details,
          infer_response: {
            model_name: message.model_name,
            model_version: message.model_version,
            id: message.id,
          },
        });
      } finally {
        shm?.releaseOutputs();
      }
    };
    call.on("data", (message) => {
      if (failed) return;
      const p = one(message as GrpcInferRequest).finally(() => running.delete(p));
      running.add(p);
    });
    call.on("end", async () => {
      while (running.size > 0) await Promise.allSettled([...running]);
      if (!failed) call.end();
      void finish();
    });
    call.on("error", () => abort());
  };
}
