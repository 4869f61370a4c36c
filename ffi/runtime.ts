/**
 * Picks the adapter for the JavaScript runtime the code runs on.
 *
 * @module
 */
import type { FfiRuntime } from "./types.ts";

let current: Promise<FfiRuntime> | undefined;

/** The name of the running JavaScript runtime. */
export function runtimeName(): "deno" | "bun" | "node" {
  if ("Deno" in globalThis) return "deno";
  if ("Bun" in globalThis) return "bun";
  return "node";
}

/** The FFI adapter for this runtime (imported once, on first use). */
export function ffiRuntime(): Promise<FfiRuntime> {
  current ??= (async () => {
    switch (runtimeName()) {
      case "deno":
        return (await import("./deno.ts")).denoRuntime;
      case "bun":
        return (await import("./bun.ts")).bunRuntime;
      default:
        return (await import("./node.ts")).nodeRuntime;
    }
  })();
  return current;
}

/** Variables the runtime refused to read (Deno without `--allow-env`). */
export const deniedEnv: Set<string> = new Set();

/** Reads an environment variable on any runtime (`undefined` where unset or not permitted). */
export function env(name: string): string | undefined {
  const deno = (globalThis as { Deno?: { env: { get(n: string): string | undefined } } }).Deno;
  if (deno) {
    try {
      return deno.env.get(name);
    } catch {
      deniedEnv.add(name);
      return undefined;
    }
  }
  const proc = (globalThis as { process?: { env: Record<string, string | undefined> } }).process;
  return proc?.env[name];
}
