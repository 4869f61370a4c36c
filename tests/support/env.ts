/**
 * What the tests run against: the model repository, the core (fake or real), and the fake core's
 * live-object counts where it is the fake one.
 *
 * @module
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import process from "node:process";
import v8 from "node:v8";
import vm from "node:vm";
import { macrotask } from "../../ffi/macrotask.ts";
import { loadTriton } from "../../ffi/mod.ts";
import { env, ffiRuntime } from "../../ffi/runtime.ts";
import { type InferResponse, Server, type ServerOptions, type StartOptions } from "../../mod.ts";

// As `npm test` does: the fake core and fake CUDA runtime built under .build/ (`npm run
// build:fake`) unless the environment names others, so that `deno test`, `bun test` and
// `node --test` each run the suite on their own. Set before any test loads a library.
for (
  const [name, built] of [
    ["TRITONSERVER_LIB", "fake_core/libtritonserver.so"],
    ["TRITONFFI_CUDART", "fake_cuda/libcudart.so"],
  ]
) {
  const path = decodeURIComponent(new URL(`../../.build/${built}`, import.meta.url).pathname);
  if (!env(name) && existsSync(path)) process.env[name] = path;
}
/**
 * Why the tests that serve gRPC do not run here, or `false` where they do. On Deno `serveGrpc()`
 * serves only where opted in: its `node:http2` server can be aborted by a client (see
 * deno_http2.ts, beside serveGrpc()'s service.ts), and the suite's own grpc-js clients did so
 * (nghttp2's assertion, in about one whole Deno run in three here). A run that can abort tests
 * nothing, so the suite does not opt in: `TRITONFFI_ALLOW_DENO_HTTP2=1 npm test` runs those tests
 * on Deno too, as a user who accepts the risk would. tests/grpc_burst.test.ts tests the refusal.
 */
export const GRPC_SKIP: string | false = "Deno" in globalThis &&
  env("TRITONFFI_ALLOW_DENO_HTTP2") !== "1" &&
  "serveGrpc() refuses Deno unless opted in (its node:http2 server can abort: deno_http2.ts); " +
    "TRITONFFI_ALLOW_DENO_HTTP2=1 runs this on Deno";

// On Bun `Server.attach()` attaches only where opted in (a terminated worker's callbacks: see
// shared_server.ts). The suite's workers opt in, stopping their servers before they end, except
// where a test terminates them on purpose; tests/workers.test.ts tests the refusal itself.
if ("Bun" in globalThis && env("TRITONFFI_ALLOW_BUN_WORKERS") === undefined) {
  process.env.TRITONFFI_ALLOW_BUN_WORKERS = "1";
}

/**
 * Why tests that serve on several threads do not run here, or `false` where they do: on Deno the
 * workers listen with `Deno.serve`'s reusePort, behind `--unstable-net` (`npm test` passes it; a
 * bare `deno test -A` does not).
 */
export const UNSTABLE_NET_SKIP: string | false = "Deno" in globalThis &&
  typeof (globalThis as { Deno?: { listenDatagram?: unknown } }).Deno?.listenDatagram !==
    "function" &&
  "workers on Deno need --unstable-net (npm test passes it)";

/**
 * The threads the suite's HTTP and OpenAI services serve on (their `workers`), from
 * `$TEST_SERVE_WORKERS` (default 1): `npm test` runs the front ends' files once more with 2 (see
 * tests/run_all.mjs), so that what they check holds whichever thread answers.
 */
export const SERVE_WORKERS: number = Number(env("TEST_SERVE_WORKERS") ?? 1);

/**
 * How many requests `server` has in flight, counted for the whole service: where the suite serves
 * on several threads ({@link SERVE_WORKERS}), the workers' requests are in their own attached
 * servers, so the fake core's count of live requests stands in (a request lives until its release
 * is read and it is deleted); otherwise `server.inflight`.
 */
export async function inflightCounter(): Promise<(server: Server) => number> {
  const live = SERVE_WORKERS > 1 ? await liveCounter() : undefined;
  return live ? () => live("request") : (server) => server.inflight;
}

/** Absolute path of the model repository: tests/models, or `$TRITONFFI_TEST_MODELS`. */
export const MODEL_REPOSITORY: string = env("TRITONFFI_TEST_MODELS") ??
  decodeURIComponent(new URL("../models", import.meta.url).pathname);

const fakeSymbols = {
  FAKECORE_LiveCount: {
    parameters: ["cstr"], // const char* kind
    result: "i64", // int64_t
    since: 0,
  },
} as const;

let fake: Promise<((kind: string) => number) | undefined> | undefined;

/**
 * Whether the library at `path` exports `symbol`, asked of `dlsym` (the loaded Triton library's
 * `addressIn`, which leaves `path` loaded). Opening it through the runtime with a symbol it lacks
 * fails, and the runtime then unloads it: a real libtritonserver.so loaded again afterwards
 * registers its protobuf descriptors twice and aborts the process.
 */
async function hasSymbol(path: string, symbol: string): Promise<boolean> {
  try {
    (await loadTriton()).addressIn(path, symbol);
    return true;
  } catch {
    return false;
  }
}

/** The fake core's `FAKECORE_LiveCount`, or undefined against a real core. */
export function liveCounter(): Promise<((kind: string) => number) | undefined> {
  fake ??= (async () => {
    const path = env("TRITONSERVER_LIB");
    if (!path) return undefined;
    const ffi = await ffiRuntime();
    if (!(await hasSymbol(path, "FAKECORE_LiveCount"))) return undefined;
    const lib = ffi.open(path, fakeSymbols);
    return (kind: string) => Number(lib.sync.FAKECORE_LiveCount(kind));
  })();
  return fake;
}

/** Whether the suite runs against the project's fake core. */
export async function isFakeCore(): Promise<boolean> {
  return (await liveCounter()) !== undefined;
}

/** Starts a server on tests/models (quiet logs unless TRITONFFI_TEST_LOG is set). */
export function startServer(
  options: Partial<ServerOptions> = {},
  start: StartOptions = {},
): Promise<Server> {
  const verbose = env("TRITONFFI_TEST_LOG") !== undefined;
  return new Server({
    modelRepository: MODEL_REPOSITORY,
    log: { info: verbose, warn: verbose },
    exitTimeoutSecs: 10,
    ...options,
  }).start(start);
}

/**
 * Waits until `server` has no request in flight: FINAL *and* release arrived for each. Triton
 * records a request's statistics after its last response, before releasing it, so counts read
 * after this include every finished request.
 */
export async function idle(server: Server, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (server.inflight > 0) {
    if (Date.now() > deadline) throw new Error(`${server.inflight} requests still in flight`);
    await new Promise((r) => setTimeout(r, 2));
  }
  await deferredDeletes();
}

/** Waits until the deletes the binding defers have run: the responses a stream moved past and
 * the requests Triton released are deleted on a later macrotask, queued with `macrotask()`
 * (setImmediate), which runs in order (a timer alone can fire before it), batched by the
 * binding's native deletes, off the JS thread when they are many. */
export async function deferredDeletes(): Promise<void> {
  await new Promise((r) => setTimeout(r, 1));
  await new Promise<void>((r) => macrotask(r));
  await (await loadTriton()).binding.nativeDeletes.drain();
}

/** Collects a copy of every response of a stream, disposing each original once copied (what a
 * test that checks for live native objects afterwards needs). */
export async function collect(stream: AsyncIterable<InferResponse>): Promise<InferResponse[]> {
  const out: InferResponse[] = [];
  for await (const item of stream) {
    out.push(item.copy());
    item.dispose();
  }
  return out;
}

let shared: Promise<Server> | undefined;

/** One server for the inference tests, started on first use and stopped by {@link stopShared}. */
export function sharedServer(): Promise<Server> {
  shared ??= startServer();
  return shared;
}

/** Stops the shared server if it was started. */
export async function stopShared(): Promise<void> {
  const started = shared;
  shared = undefined;
  if (started) await (await started.catch(() => undefined))?.stop();
}

const fakeCudaSymbols = {
  FAKECUDA_SetFail: { parameters: ["cstr"], result: "void", since: 0 },
  FAKECUDA_LiveCount: { parameters: ["cstr"], result: "i64", since: 0 },
  FAKECUDA_IsDevicePointer: { parameters: ["ptr"], result: "i32", since: 0 },
  cudaMalloc: { parameters: ["buf", "usize"], result: "i32", since: 0 },
  cudaFree: { parameters: ["ptr"], result: "i32", since: 0 },
  cudaMemcpy: { parameters: ["ptr", "ptr", "usize", "i32"], result: "i32", since: 0 },
  cudaIpcGetMemHandle: { parameters: ["buf", "ptr"], result: "i32", since: 0 },
} as const;

/** The fake CUDA runtime's test controls, when `$TRITONFFI_CUDART` is the fake one. */
export interface FakeCuda {
  /** Makes one cuda* function fail ("" clears). */
  setFail(fn: string): void;
  /** Allocations not yet freed: "device", "pinned" or "total"; "ipc": IPC openings not closed. */
  live(kind: "device" | "pinned" | "total" | "ipc"): number;
  /** Whether `address` came from cudaMalloc. */
  isDevicePointer(address: number): boolean;
  /** `cudaMalloc`: the address of `byteSize` new bytes of "device" memory. */
  malloc(byteSize: number): number;
  /** `cudaFree`. */
  free(address: number): void;
  /** `cudaIpcGetMemHandle` of a `malloc`'d address: its 64-byte handle. */
  ipcHandle(address: number): Uint8Array;
  /** Copies `bytes` to device address `address` (`cudaMemcpy` host to device). */
  write(address: number, bytes: Uint8Array): void;
  /** `byteSize` bytes at device address `address`, a host copy (`cudaMemcpy` device to host). */
  read(address: number, byteSize: number): Uint8Array;
}

let fakeCudaLib: Promise<FakeCuda | undefined> | undefined;

/** The fake CUDA runtime's controls, or undefined. */
export function fakeCuda(): Promise<FakeCuda | undefined> {
  fakeCudaLib ??= (async () => {
    const path = env("TRITONFFI_CUDART");
    if (!path || path === "none") return undefined;
    const ffi = await ffiRuntime();
    if (!(await hasSymbol(path, "FAKECUDA_SetFail"))) return undefined;
    try {
      const lib = ffi.open(path, fakeCudaSymbols).sync;
      return {
        setFail: (fn: string) => lib.FAKECUDA_SetFail(fn),
        live: (kind: string) => Number(lib.FAKECUDA_LiveCount(kind)),
        isDevicePointer: (a: number) => lib.FAKECUDA_IsDevicePointer(ffi.fromAddress(a)) !== 0,
        malloc: (byteSize: number) => {
          const out = new BigUint64Array(1);
          assert.equal(lib.cudaMalloc(out, byteSize), 0, "cudaMalloc");
          return Number(out[0]);
        },
        free: (a: number) => assert.equal(lib.cudaFree(ffi.fromAddress(a)), 0, "cudaFree"),
        ipcHandle: (a: number) => {
          const handle = new Uint8Array(64);
          assert.equal(
            lib.cudaIpcGetMemHandle(handle, ffi.fromAddress(a)),
            0,
            "cudaIpcGetMemHandle",
          );
          return handle;
        },
        write: (a: number, bytes: Uint8Array) => {
          const rc = lib.cudaMemcpy(ffi.fromAddress(a), ffi.addressOf(bytes), bytes.byteLength, 1);
          assert.equal(rc, 0, "cudaMemcpy to device");
        },
        read: (a: number, byteSize: number) => {
          const out = new Uint8Array(byteSize);
          const rc = lib.cudaMemcpy(ffi.addressOf(out), ffi.fromAddress(a), byteSize, 2);
          assert.equal(rc, 0, "cudaMemcpy to host");
          return out;
        },
      };
    } catch {
      return undefined;
    }
  })();
  return fakeCudaLib;
}

/** Runs `script` (a path relative to tests/) on the current runtime with extra environment;
 * resolves with its exit code and output. `$TRITONFFI_TEST_EXEC_PREFIX`, a JSON array of
 * strings, goes before the command: under emulation (tests/aarch64/run.mjs) the child is
 * `qemu-aarch64-static -L <sysroot> <runtime> ...`, as the emulated runtime cannot start one of its
 * own architecture itself. */
export async function runScript(
  script: string,
  extraEnv: Record<string, string>,
  denoFlags: readonly string[] = [],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { spawnSync } = await import("node:child_process");
  const process = (await import("node:process")).default;
  const path = decodeURIComponent(new URL(`../${script}`, import.meta.url).pathname);
  const deno = (globalThis as { Deno?: { execPath(): string } }).Deno;
  const [cmd, args] = deno
    ? [deno.execPath(), [
      "run",
      "--allow-ffi",
      "--allow-env",
      "--allow-read",
      "--allow-write",
      ...denoFlags,
      path,
    ]]
    : [process.execPath, [path]];
  const prefix = JSON.parse(env("TRITONFFI_TEST_EXEC_PREFIX") ?? "[]") as string[];
  const r = spawnSync(prefix[0] ?? cmd, [
    ...prefix.slice(1),
    ...(prefix.length ? [cmd] : []),
    ...args,
  ], {
    env: { ...process.env, ...extraEnv },
    encoding: "utf8",
    timeout: 120_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

const probeSymbols = {
  FAKECORE_LastInputBase: { parameters: [], result: "ptr", since: 0 },
  FAKECORE_LastOutputBuffer: { parameters: [], result: "ptr", since: 0 },
  FAKECORE_MisuseCount: { parameters: [], result: "i32", since: 0 },
  FAKECORE_LastRequestParameters: { parameters: [], result: "cstr", since: 0 },
  FAKECORE_LastRequestTimeoutUs: { parameters: [], result: "u64", since: 0 },
} as const;

/** The fake core's probes, or undefined against a real core. */
export interface FakeProbe {
  /** The base of the last input data appended. */
  lastInput(): number;
  /** The last output buffer the allocator handed out. */
  lastOutput(): number;
  /** Uses of objects after what they depend on was deleted. */
  misuse(): number;
  /** The last inferred request's parameters, "name=TYPE:value;..." in the order set. */
  lastParameters(): string;
  /** The last inferred request's timeout in microseconds (0: none). */
  lastTimeoutUs(): bigint;
}

/** The fake core's probes ({@link FakeProbe}), or undefined against a real core. */
export async function fakeProbe(): Promise<FakeProbe | undefined> {
  const path = env("TRITONSERVER_LIB");
  if (!path || !(await isFakeCore())) return undefined;
  const ffi = await ffiRuntime();
  const lib = ffi.open(path, probeSymbols).sync;
  return {
    lastInput: () => ffi.address(lib.FAKECORE_LastInputBase()),
    lastOutput: () => ffi.address(lib.FAKECORE_LastOutputBuffer()),
    misuse: () => lib.FAKECORE_MisuseCount(),
    lastParameters: () => lib.FAKECORE_LastRequestParameters(),
    lastTimeoutUs: () => BigInt(lib.FAKECORE_LastRequestTimeoutUs()),
  };
}

/**
 * Runs a full garbage collection where the runtime lets the tests force one (`--expose-gc` on
 * Deno and Node, `Bun.gc` on Bun), then waits a few macrotasks so that finalizers (the
 * binding's release of responses nobody holds) have run. Returns false where no collection
 * can be forced.
 */
export async function collectGarbage(): Promise<boolean> {
  const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
  const gc = bun ? undefined : v8Gc();
  if (!bun && !gc) return false;
  for (let i = 0; i < 3; i++) {
    if (bun) bun.gc(true);
    else gc!();
    await new Promise((r) => setTimeout(r, 5));
    await deferredDeletes();
  }
  return true;
}

/** V8's `gc()`: the global one where the runner exposes it (`--expose-gc`, as `npm test` runs
 * Deno and Node), otherwise turned on now (`deno test -A tests/` and `node --test` alone). */
function v8Gc(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  try {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as unknown;
    return typeof gc === "function" ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

/** The inputs of the sleep_stream model: `count` responses, `delayMs` apart. */
export function sleepInputs(count: number, delayMs: number) {
  return { COUNT: new Int32Array([count]), DELAY_MS: new Int32Array([delayMs]) };
}
