/**
 * The benchmark file `npm run bench` runs on Deno, Bun and Node (bench/run.mjs): the raw FFI cost
 * of the hot calls, the 64 MiB output read, the FFI layer's own inference loop, and the inference
 * scenarios through the public API, on the library of `$TRITONSERVER_LIB`. Writes one JSON object to the path in `$BENCH_OUT` (stdout otherwise).
 *
 * Environment: `BENCH_MODELS` (model repository, default tests/models), `BENCH_DURATION_MS`
 * (per timed run, default 1000), `BENCH_ONLY` (comma-separated sections or scenario names:
 * `micro`, `bigOutput`, `floor` (the FFI layer alone), `scenarios` (all of them),
 * `latency_1x16`, …, `scaling` (bench/inference.ts's scaling rows, after the scenarios); all by
 * default),
 * `TRITONFFI_CALLBACKS` (see README).
 *
 * @module
 */
import { writeFileSync } from "node:fs";
import process from "node:process";
import { Server } from "../mod.ts";
import { env, loadTriton, runtimeName } from "../ffi/mod.ts";
import { bigOutput } from "./big_output.ts";
import { inference, scaling, SCENARIOS } from "./inference.ts";
import { floor } from "./floor.ts";
import { micro } from "./micro.ts";

const models = env("BENCH_MODELS") ??
  decodeURIComponent(new URL("../tests/models", import.meta.url).pathname);
const ms = Number(env("BENCH_DURATION_MS") ?? 1000);
const onlyList = env("BENCH_ONLY")?.split(",").filter((s) => s !== "");
const only = (name: string) =>
  !onlyList || onlyList.includes(name) ||
  (onlyList.includes("scenarios") && (SCENARIOS as readonly string[]).includes(name));

const server = await new Server({
  modelRepository: models,
  modelControlMode: "explicit",
  startupModels: ["identity_int32", "identity_fp32", "repeat_int32"],
  log: { info: false, warn: false },
}).start();
const lib = await loadTriton();

/** Runs the scenarios, which never dispose a response, and the process's RSS (MiB) before and
 * after them with the responses still held by the server: what memory a user who never disposes
 * sees (the binding's budget bounds it). */
async function measuredMemory<T>(run: () => Promise<T>): Promise<{
  scenarios: T;
  memory: { rssBeforeMiB: number; rssAfterMiB: number; liveResponsesAfter: number };
}> {
  const rss = () => process.memoryUsage().rss / 2 ** 20;
  const rssBeforeMiB = rss();
  const scenarios = await run();
  return {
    scenarios,
    memory: { rssBeforeMiB, rssAfterMiB: rss(), liveResponsesAfter: server.liveResponses },
  };
}
const table = lib.binding.callbacks;
const versions = (globalThis as { process?: { versions: Record<string, string> } }).process
  ?.versions ?? {};
const runtime = runtimeName();
const results = {
  runtime,
  version: runtime === "deno"
    ? (globalThis as { Deno?: { version: { deno: string } } }).Deno?.version.deno
    : runtime === "bun"
    ? versions.bun
    : versions.node,
  callbacks: table.mode,
  fallbackReason: table.fallbackReason,
  micro: only("micro") ? await micro(lib, server.inferTarget("identity_int32", -1)) : undefined,
  bigOutput: only("bigOutput") ? await bigOutput(server, lib) : undefined,
  floor: only("floor") ? await floor(lib, server.inferTarget("identity_int32", -1), ms) : undefined,
  ...(await measuredMemory(() => inference(server, ms, only))),
  scaling: only("scaling") ? await scaling(server, ms) : undefined,
};
await server.stop();
const json = JSON.stringify(results, null, 2);
const out = env("BENCH_OUT");
if (out) writeFileSync(out, json);
else console.log(json);
process.exit(0);
