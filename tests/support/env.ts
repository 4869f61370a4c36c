/**
 * What the tests run against: the model repository, the core (fake or real), and the fake core's
 * live-object counts where it is the fake one.
 *
 * @module
 */
import { ffiRuntime } from "../../ffi/runtime.ts";
import { env } from "../../ffi/runtime.ts";
import { type InferResponse, Server, type ServerOptions } from "../../mod.ts";

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

/** The fake core's `FAKECORE_LiveCount`, or undefined against a real core. */
export function liveCounter(): Promise<((kind: string) => number) | undefined> {
  fake ??= (async () => {
    const path = env("TRITONSERVER_LIB");
    if (!path) return undefined;
    const ffi = await ffiRuntime();
    try {
      const lib = ffi.open(path, fakeSymbols);
      return (kind: string) => Number(lib.sync.FAKECORE_LiveCount(kind));
    } catch {
      return undefined;
    }
  })();
  return fake;
}

/** Whether the suite runs against the project's fake core. */
export async function isFakeCore(): Promise<boolean> {
  return (await liveCounter()) !== undefined;
}

/** Starts a server on tests/models (quiet logs unless TRITONFFI_TEST_LOG is set). */
export function startServer(options: Partial<ServerOptions> = {}): Promise<Server> {
  const verbose = env("TRITONFFI_TEST_LOG") !== undefined;
  return new Server({
    modelRepository: MODEL_REPOSITORY,
    logInfo: verbose,
    logWarn: verbose,
    exitTimeout: 10,
    ...options,
  }).start();
}

/** Collects a copy of every response of a stream (the originals are released as it moves on). */
export async function collect(stream: AsyncIterable<InferResponse>): Promise<InferResponse[]> {
  const out: InferResponse[] = [];
  for await (const item of stream) out.push(item.copy());
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
