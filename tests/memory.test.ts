import assert from "node:assert/strict";
import { after } from "node:test";
import { test } from "./support/test.ts";
import process from "node:process";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { Tensor, TritonError } from "../mod.ts";
import { loadTriton } from "../ffi/mod.ts";
import {
  collect,
  collectGarbage,
  fakeCuda,
  fakeProbe,
  idle,
  isFakeCore,
  liveCounter,
  runScript,
  sharedServer,
  stopShared,
} from "./support/env.ts";

after(stopShared);

const int32 = (values: number[]) => ({
  INPUT0: { dtype: "INT32" as const, shape: [1, values.length], data: new Int32Array(values) },
});

const cudaControls = await fakeCuda();
const needsCuda = { skip: !cudaControls && "needs the fake CUDA runtime (TRITONFFI_CUDART)" };
const probe = await fakeProbe();
const fake = await isFakeCore();

/** `n` INT32 values 0, 1, 2, …: more than 64 KiB (COPY_LIMIT) when n > 16384. */
const counting = (n: number) => Array.from({ length: n }, (_, i) => i);

test("outputMemory cpu (default): large outputs are zero-copy views, small ones copies", async () => {
  const server = await sharedServer();
  const big = counting(20_000); // 80,000 bytes
  for await (const r of server.model("identity_int32").infer({ inputs: int32(big) })) {
    const out = r.outputs.OUTPUT0;
    assert.equal(out.memoryType, "CPU");
    assert.equal(out.memoryTypeId, 0);
    assert.equal(out.isView, true);
    assert.equal(out.byteSize, 80_000);
    assert.deepEqual(Array.from(out.data as Int32Array), big);
    r.dispose();
  }
  for await (const r of server.model("identity_int32").infer({ inputs: int32([1, 2, 3]) })) {
    const out = r.outputs.OUTPUT0;
    assert.equal(out.isView, false, "12 bytes are copied into JS memory");
    assert.equal(out.byteSize, 12);
    assert.deepEqual(Array.from(out.data as Int32Array), [1, 2, 3]);
  }
});

test(
  "zero-copy: an output is a view of the allocator's buffer; an input's address reaches the core",
  {
    skip: !probe && "needs the fake core's address probes",
  },
  async () => {
    const server = await sharedServer();
    const { ffi } = await loadTriton();
    const input = new Int32Array(counting(20_000)); // past COPY_LIMIT: a view
    const inputs = { INPUT0: { dtype: "INT32" as const, shape: [1, 20_000], data: input } };
    for await (const r of server.model("identity_int32").infer({ inputs })) {
      assert.equal(probe!.lastInput(), ffi.address(ffi.addressOf(input)), "input passed in place");
      const out = r.outputs.OUTPUT0.data as Int32Array;
      assert.deepEqual(Array.from(out), Array.from(input));
      assert.equal(ffi.address(ffi.addressOf(out)), probe!.lastOutput(), "output not copied");
    }
  },
);

test(
  "outputMemory cpu_pinned: CPU_PINNED from cudaHostAlloc, freed on dispose",
  needsCuda,
  async () => {
    const cuda = cudaControls!;
    const server = await sharedServer();
    const before = cuda.live("pinned");
    const stream = server.model("identity_int32").infer({
      inputs: int32([7, 8]),
      outputMemory: "cpu_pinned",
    });
    const { value: r } = await stream.next();
    assert.ok(r);
    assert.equal(r.outputs.OUTPUT0.memoryType, "CPU_PINNED");
    assert.deepEqual(Array.from(r.outputs.OUTPUT0.data as Int32Array), [7, 8]);
    assert.equal(cuda.live("pinned"), before + 1);
    assert.equal((await stream.next()).done, true);
    assert.equal(cuda.live("pinned"), before + 1, "the stream's end leaves it to its holder");
    r.dispose();
    assert.equal(cuda.live("pinned"), before, "freed with cudaFreeHost on dispose");
  },
);

test("outputMemory gpu: a GPU tensor at a cudaMalloc address; toHost() copies it", {
  skip: needsCuda.skip || (!fake && "a CPU-only core cannot fill GPU buffers"),
}, async () => {
  const cuda = cudaControls!;
  const server = await sharedServer();
  for await (
    const r of server.model("identity_int32").infer({
      inputs: int32([9, -9]),
      outputMemory: "gpu:0",
    })
  ) {
    const out = r.outputs.OUTPUT0;
    assert.equal(out.memoryType, "GPU");
    assert.equal(out.memoryTypeId, 0);
    assert.ok(cuda.isDevicePointer(out.devicePointer!), "address from cudaMalloc");
    assert.equal(cuda.live("device"), 1);
    assert.throws(
      () => out.data,
      (e: unknown) => e instanceof TritonError && e.code === "UNSUPPORTED",
    );
    assert.deepEqual(Array.from(out.toHost().data as Int32Array), [9, -9]);
    r.dispose();
    assert.equal(cuda.live("device"), 0, "freed with cudaFree on dispose");
    assert.throws(() => out.toHost(), (e: unknown) => e instanceof TritonError);
  }
});

test("outputMemory gpu:N beyond the device count is INVALID_ARG", needsCuda, async () => {
  const server = await sharedServer();
  assert.throws(
    () => server.model("identity_int32").infer({ inputs: int32([1]), outputMemory: "gpu:7" }),
    (e: unknown) =>
      e instanceof TritonError && e.code === "INVALID_ARG" && /device/.test(e.message),
  );
  assert.throws(
    () =>
      server.model("identity_int32").infer({ inputs: int32([1]), outputMemory: "tpu" as "gpu" }),
    /outputMemory must be/,
  );
});

test(
  "without CUDA: gpu and pinned fail UNAVAILABLE, or fall back to CPU when allowed",
  { timeout: 120_000 },
  async () => {
    const r = await runScript("support/no_cuda.ts", { TRITONFFI_CUDART: "none" });
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout.trim().split("\n").pop()!);
    assert.match(result.gpu, /^UNAVAILABLE: outputMemory "gpu" needs a CUDA device/);
    assert.match(result.cpu_pinned, /^UNAVAILABLE: /);
    assert.equal(result["gpu+fallback"], "CPU 5,6");
    assert.equal(result["cpu_pinned+fallback"], "CPU 5,6");
    assert.equal(result.auto, "CPU");
  },
);

test(
  "a CUDA allocation failure reaches the caller as a TritonError and leaks nothing",
  needsCuda,
  async () => {
    const cuda = cudaControls!;
    const server = await sharedServer();
    cuda.setFail("cudaMalloc");
    try {
      await assert.rejects(
        collect(server.model("identity_int32").infer({ inputs: int32([1]), outputMemory: "gpu" })),
        (e: unknown) => e instanceof TritonError && /cudaMalloc/.test(e.message),
      );
      const [r] = await collect(
        server.model("identity_int32").infer({
          inputs: int32([4]),
          outputMemory: "gpu",
          allowMemoryFallback: true,
        }),
      );
      assert.equal(r.outputs.OUTPUT0.memoryType, "CPU");
    } finally {
      cuda.setFail("");
    }
    await collectGarbage();
    assert.equal(cuda.live("total"), 0);
    const live = await liveCounter();
    if (live) {
      assert.equal(live("response"), 0);
      assert.equal(live("buffer"), 0);
    }
  },
);

test("GPU inputs are passed by device address", {
  skip: needsCuda.skip || (!fake && "a CPU-only core cannot read GPU inputs"),
}, async () => {
  const server = await sharedServer();
  const lib = await loadTriton();
  const host = new Int32Array([11, 22, 33]);
  // The fake CUDA runtime's device memory is host memory: a JS array's address stands in for it.
  const address = lib.ffi.address(lib.ffi.addressOf(host));
  const input = Tensor.onDevice("INT32", [1, 3], address, host.byteLength, 0);
  const [r] = await collect(server.model("identity_int32").infer({ inputs: { INPUT0: input } }));
  assert.deepEqual(Array.from(r.outputs.OUTPUT0.data as Int32Array), [11, 22, 33]);
});

test("reading an output after its response is disposed throws; copy() keeps values", async () => {
  const server = await sharedServer();
  const values = counting(20_000); // past COPY_LIMIT: a view
  const stream = server.model("identity_int32").infer({ inputs: int32(values) });
  const { value: r } = await stream.next();
  assert.ok(r);
  const view = r.outputs.OUTPUT0.data as Int32Array;
  const kept = r.outputs.OUTPUT0.copy();
  const copied = r.copy();
  r.dispose();
  assert.equal(r.disposed, true);
  assert.throws(
    () => r.outputs.OUTPUT0.data,
    (e: unknown) =>
      e instanceof TritonError && e.code === "UNAVAILABLE" && /released/.test(e.message),
  );
  if (typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === "function") {
    assert.equal(view.length, 0, "the view was detached");
  }
  assert.deepEqual(Array.from(kept.data as Int32Array), values);
  assert.deepEqual(Array.from(copied.outputs.OUTPUT0.data as Int32Array), values);
  r.dispose(); // idempotent
  assert.equal((await stream.next()).done, true);
});

test("using disposes a response at the end of its block", async () => {
  const server = await sharedServer();
  await collectGarbage(); // the responses earlier tests dropped
  const base = server.liveResponses;
  const stream = server.model("identity_int32").infer({ inputs: int32([5]) });
  {
    using r = (await stream.next()).value!;
    assert.equal((r.outputs.OUTPUT0.data as Int32Array)[0], 5);
    assert.equal(server.liveResponses, base + 1);
  }
  assert.equal(server.liveResponses, base);
  await stream.return(undefined);
});

/** A full GC: `Bun.gc`, the `gc` global of `--expose-gc`, or on V8 (Node, Deno) the same flag set
 * at run time, so that the runners need no flag of their own. */
const fullGc: () => void = (() => {
  const g = globalThis as { gc?: () => void; Bun?: { gc(full: boolean): void } };
  if (g.Bun) return () => g.Bun!.gc(true);
  if (g.gc) return g.gc;
  v8.setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
})();

/**
 * After a full GC: the process's memory less the pages the JS engine keeps committed but unused
 * (RSS − (heapTotal − heapUsed)), and the heap in use. RSS alone counts the heap the engine grows
 * and keeps after collecting (V8 commits ~60 MiB over the first 30,000 inferences here, with
 * 7 MiB in use), which is no leak; what the heap or native code does keep still counts.
 */
function memory(): { rss: number; heap: number } {
  fullGc();
  const m = process.memoryUsage();
  return { rss: m.rss - (m.heapTotal - m.heapUsed), heap: m.heapUsed };
}

test(
  "leak check: nothing alive after each run, and memory stops growing over doublings of the count",
  { timeout: 300_000 },
  async () => {
    const server = await sharedServer();
    const live = await liveCounter();
    const model = server.model("identity_int32");
    const run = async (n: number) => {
      let next = 0;
      const worker = async () => {
        while (next < n) {
          const k = next++;
          for await (const r of model.infer({ inputs: int32([k, k + 1, k + 2, k + 3]) })) {
            assert.equal((r.outputs.OUTPUT0.data as Int32Array)[0], k);
          }
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
      await idle(server, 5000);
      // Nothing was disposed: the garbage collector releases the responses.
      await collectGarbage();
      assert.equal(server.liveResponses, 0, `responses held after ${n} inferences`);
      if (live) {
        for (const kind of ["request", "response", "buffer", "error"]) {
          assert.equal(live(kind), 0, `${kind} alive after ${n} inferences`);
        }
      }
    };
    await run(1000); // warm-up
    // Doublings of the count: a leak grows memory in proportion to the count, so every doubling
    // shows the same growth per inference; a working set that settles (the allocator's, or what
    // another test file left) grows once. Judged on the better of the last two doublings, so that
    // one settling step inside them is not taken for a leak.
    const counts = [1000, 2000, 4000, 8000, 16000];
    const points = [{ n: 0, ...memory() }];
    for (const n of counts) {
      await run(n);
      points.push({ n, ...memory() });
    }
    const perInference = points.slice(1).map((p, i) => ({
      n: p.n,
      rss: (p.rss - points[i].rss) / p.n,
      heap: (p.heap - points[i].heap) / p.n,
    }));
    const report = perInference.map((s) => `${s.n}: ${s.rss.toFixed(0)}/${s.heap.toFixed(0)}`)
      .join(", ");
    const last = perInference.slice(-2);
    const rssSlope = Math.min(...last.map((s) => s.rss));
    const heapSlope = Math.min(...last.map((s) => s.heap));
    // `report`: bytes per inference, memory/heap, by doubling.
    assert.ok(
      rssSlope < 1024,
      `memory keeps growing with the count (bytes per inference) ${report}`,
    );
    assert.ok(heapSlope < 256, `heap keeps growing with the count (bytes per inference) ${report}`);
  },
);
