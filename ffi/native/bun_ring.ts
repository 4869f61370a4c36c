/**
 * The completion ring's producers for Bun: `ffi/native/c/ring_producer.c`, compiled at run time by
 * `cc()` (TinyCC). The same contract as the x86-64 routines (`x86_64/ring.ts`, layout in
 * `ring_layout.ts`), but the wake-up is a threadsafe `JSCallback`, which Bun posts to the JS
 * thread without making the producer wait (Bun has no FFI call that blocks off the JS thread, so
 * no eventfd read). The C reference client (bench/native) compiles the same file.
 *
 * Under TinyCC the C makes its atomic operations with x86-64 inline assembly on x86-64; on
 * aarch64 (no A64 inline assembly, no `__atomic` runtime) it calls generated A64 functions
 * (`a64/atomics.ts`, `Routines.atomics`), placed here and handed to the C before any push.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { CompletionKind } from "../completion_ring.ts";
import { RingLayout } from "./ring_layout.ts";
import { PAGE_SIZE, placeCode } from "../os.ts";
import type { FfiRuntime, Ptr } from "../types.ts";
import type { Routines } from "./routines.ts";

/** The path of the C source (read by the compiler where the module is a file). */
export function ringProducerSource(): string {
  return fileURLToPath(new URL("./c/ring_producer.c", import.meta.url));
}

/**
 * The constants `ring_producer.c` is compiled with: the ring layout (`TRITONFFI_RING_TAIL` ...)
 * and the completion kinds (`TRITONFFI_KIND_RESPONSE`, `TRITONFFI_KIND_RELEASE`).
 */
export function ringDefines(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(RingLayout)) out[`TRITONFFI_RING_${k}`] = String(v);
  for (const [k, v] of Object.entries(CompletionKind)) out[`TRITONFFI_KIND_${k}`] = String(v);
  return out;
}

const completionFn = {
  parameters: ["ptr", "u32", "ptr"],
  result: "void",
} as const;

/** The C functions of `ring_producer.c`. */
export const bunRingSymbols = {
  tritonffi_ring_configure: { parameters: ["ptr", "u32", "ptr"], result: "void" },
  tritonffi_response_complete: completionFn,
  tritonffi_request_release: completionFn,
} as const;

/** The extra function of `ring_producer.c` where the atomics are generated (aarch64). */
const atomicsSymbols = {
  tritonffi_ring_atomics: { parameters: ["ptr", "ptr", "ptr"], result: "void" },
} as const;

/**
 * Compiles the producers for the ring at `ring` (one compilation per ring: the C keeps it in
 * statics) and returns their function pointers.
 * @param wake a C function pointer the producer calls when the consumer sleeps.
 * @param routines this CPU's generated routines (undefined where there are none): where they have
 *   `atomics` (aarch64), those are placed and the C calls them; on aarch64 the C needs them.
 * @throws {Error} where `cc()` is absent or the C does not compile.
 * @throws {ExecMemoryError} when the atomics' page is refused executable memory.
 */
export function compileBunRing(
  ffi: FfiRuntime,
  ring: Ptr,
  capacity: number,
  wake: Ptr,
  routines: Routines | undefined,
): { responseComplete: Ptr; requestRelease: Ptr } {
  if (!ffi.compile) throw new Error(`${ffi.name} has no run-time C compiler`);
  const generate = routines?.atomics;
  if (generate === undefined) {
    const c = ffi.compile(ringProducerSource(), ringDefines(), bunRingSymbols);
    c.call.tritonffi_ring_configure(ring, capacity, wake);
    return {
      responseComplete: c.pointers.tritonffi_response_complete,
      requestRelease: c.pointers.tritonffi_request_release,
    };
  }
  let entries: ReturnType<typeof generate>["entries"] | undefined;
  const page = placeCode(ffi, PAGE_SIZE, () => {
    const generated = generate();
    entries = generated.entries;
    return generated.code;
  }, routines!.flush);
  const at = (offset: number) => ffi.fromAddress(ffi.address(page) + offset);
  const c = ffi.compile(ringProducerSource(), ringDefines(), {
    ...bunRingSymbols,
    ...atomicsSymbols,
  });
  c.call.tritonffi_ring_atomics(
    at(entries!.fetchIncrement),
    at(entries!.exchange),
    at(entries!.loadAcquire),
  );
  c.call.tritonffi_ring_configure(ring, capacity, wake);
  return {
    responseComplete: c.pointers.tritonffi_response_complete,
    requestRelease: c.pointers.tritonffi_request_release,
  };
}
