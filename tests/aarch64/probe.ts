/**
 * Prints, as one line `probe: {...}`, what the binding sees on the runtime that runs this file:
 * the runtime, the CPU architecture as the runtime reports it, and the callback path the binding
 * chose (`lib.binding.callbacks.mode`, the native layer's kind where the binding names it, and
 * `fallbackReason` where it fell back). Loads the
 * library `$TRITONSERVER_LIB` names (tests/aarch64/run.mjs: the fake core built for aarch64).
 *
 * @module
 */
import process from "node:process";
import { loadTriton, runtimeName } from "../../ffi/mod.ts";

/** The architecture as the runtime names it (Deno: `aarch64`; Node and Bun: `arm64`), and as
 * Linux names it. */
function architecture(): { reported: string; linux: string } {
  const deno = (globalThis as { Deno?: { build: { arch: string } } }).Deno;
  const reported = deno ? deno.build.arch : process.arch;
  const linux = reported === "arm64" ? "aarch64" : reported === "x64" ? "x86_64" : reported;
  return { reported, linux };
}

const lib = await loadTriton();
const table = lib.binding.callbacks;
const { mode, fallbackReason } = table;
// Where the binding says which native layer runs (x86_64, a64, bun-cc or none), when it does.
const nativeKind = (table as { nativePath?: { kind?: string } }).nativePath?.kind;
const arch = architecture();
console.log(`probe: ${
  JSON.stringify({
    runtime: runtimeName(),
    arch: arch.linux,
    reportedArch: arch.reported,
    callbacks: mode,
    nativeKind: nativeKind ?? null,
    fallbackReason: fallbackReason ?? null,
  })
}`);
