/**
 * The one place that picks how the native layer runs on this platform: generated x86-64 code,
 * generated A64 code, C compiled by Bun's `cc()`, or none (JS callbacks). Everything native
 * (`callbacks.ts`, `response_reader.ts`, `request_submitter.ts`, `deletes.ts`, the placing
 * allocator through `callbacks.ts`) asks the {@link NativePath} its binding chose, once, instead
 * of testing the CPU itself.
 *
 * @module
 */
import { platform } from "../os.ts";
import type { FfiRuntime } from "../types.ts";
import type { Routines } from "./routines.ts";
import { a64Routines } from "./a64/routines.ts";
import { x8664Routines } from "./x86_64/routines.ts";

/**
 * How the native layer runs:
 * - `"x86_64"`: routines generated as x86-64 code (Deno, Node);
 * - `"a64"`: routines generated as A64 code (Deno, Node on aarch64);
 * - `"bun-cc"`: the ring producers, the reader and the deleter's comparator in C compiled by
 *   Bun's `cc()` (TinyCC), the request submitter generated (on aarch64 the producers' atomic
 *   operations too: `a64/atomics.ts`);
 * - `"none"`: JS callbacks, every read and delete call by call.
 */
export type NativeKind = "x86_64" | "a64" | "bun-cc" | "none";

/** The path chosen and, for `"none"`, why. */
export interface NativePath {
  readonly kind: NativeKind;
  /** The CPU, as Linux names it (`x86_64`, `aarch64`, …). */
  readonly arch: string;
  /** The generated routines for this CPU, where there are (also under `"bun-cc"`: the request
   * submitter is generated there too); undefined under `"none"`. */
  readonly routines?: Routines;
  /** Why the path is `"none"` (or why a part of it is missing); undefined when all is native. */
  readonly reason?: string;
}

/**
 * The generated routines for `arch`, or why there are none: the one switch where an instruction
 * set plugs in (`x86_64/routines.ts`, `a64/routines.ts`); {@link chooseNativePath} then picks
 * `"x86_64"` or `"a64"` (or `"bun-cc"`, whose C uses the set too: the request submitter, and on
 * aarch64 the ring producers' atomic operations).
 */
export function routinesFor(arch: string): Routines | string {
  switch (arch) {
    case "x86_64":
      return x8664Routines;
    case "aarch64":
      return a64Routines;
    default:
      return `no native routines for ${arch}`;
  }
}

/**
 * Picks the native path for `ffi` on this platform (what its binding does once, in
 * `../callbacks.ts`). Says nothing of whether executable memory or the C compiler will be
 * granted: that shows when the path is built, which falls back to `"none"` with its reason.
 */
export function chooseNativePath(ffi: FfiRuntime): NativePath {
  const { arch, linux } = platform();
  if (!linux) return { kind: "none", arch, reason: "the native layer needs Linux" };
  const routines = routinesFor(arch);
  if (typeof routines === "string") return { kind: "none", arch, reason: routines };
  if (!ffi.callbacksReturnToForeignThreads) {
    // Bun: its callbacks cannot return to Triton's threads, so the producers are C.
    if (!ffi.compile) return { kind: "none", arch, reason: "no C compiler" };
    return { kind: "bun-cc", arch, routines };
  }
  return { kind: routines.arch === "aarch64" ? "a64" : "x86_64", arch, routines };
}

/** The path when the native one is not taken (`reason` says why). */
export function noNativePath(reason: string): NativePath {
  return { kind: "none", arch: platform().arch, reason };
}
