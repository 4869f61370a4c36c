/**
 * Where koffi's callbacks read the arguments a C caller passes on the stack, found by calling one.
 *
 * koffi 3.3.4 on Linux arm64 reads a callback's stack arguments (the 9th integer or pointer
 * argument on) one slot, 8 bytes, too low: the first one read is the return address its
 * trampoline saved, and each later one is the argument before it. Triton's response allocator
 * (`TRITONSERVER_ResponseAllocatorAllocFn_t`, 10 parameters) then writes the memory type it chose
 * into the caller's code, which crashes the process at the first inference. A callback
 * registered with one dummy parameter in that slot receives every real argument where it belongs.
 *
 * The layout is not assumed from the architecture or koffi's version: {@link stackArgumentLayout}
 * calls a callback of ten pointer-sized parameters through koffi with 1..10, once plainly and,
 * when that does not arrive intact, once with the dummy slot; the layout that delivers 1..10 is
 * used. The Node adapter (`node.ts`) asks once, on the first callback of more than eight
 * parameters, and keeps the answer with its koffi.
 *
 * @module
 */

/** The part of koffi this check uses. */
export interface KoffiCalls {
  proto(name: string, result: string, params: string[]): unknown;
  /** An anonymous prototype (no name to collide with another check's). */
  proto(result: string, params: string[]): unknown;
  pointer(type: unknown): unknown;
  register(fn: (...args: never[]) => unknown, type: unknown): bigint | number;
  unregister(callback: bigint | number): void;
  call(fn: bigint | number, type: unknown, ...args: unknown[]): unknown;
}

/** How many integer or pointer arguments go in registers before the stack (AAPCS64's x0-x7). */
const REGISTER_ARGUMENTS = 8;

/** `"plain"`: koffi reads stack arguments where C put them; `"shifted"`: one dummy slot first. */
export type StackArgumentLayout = "plain" | "shifted";

/** Whether a callback of `n` pointer-sized parameters, registered with this layout, receives
 * 1..n when called as C calls it (koffi's calls put stack arguments where C does). */
function delivers(
  koffi: KoffiCalls,
  layout: StackArgumentLayout,
  n: number,
  called: unknown,
): boolean {
  const params = new Array<string>(n).fill("uintptr_t");
  const registered = layout === "plain"
    ? called
    : koffi.proto("uintptr_t", params.toSpliced(REGISTER_ARGUMENTS, 0, "uintptr_t"));
  let seen: number[] = [];
  const fn = (...args: never[]) => {
    seen = (args as unknown[]).map(Number);
    if (layout === "shifted") seen.splice(REGISTER_ARGUMENTS, 1);
    return 0;
  };
  const callback = koffi.register(fn, koffi.pointer(registered));
  try {
    koffi.call(callback, called, ...Array.from({ length: n }, (_, i) => i + 1));
  } finally {
    koffi.unregister(callback);
  }
  return seen.length === n && seen.every((v, i) => v === i + 1);
}

/**
 * The stack-argument layout of `koffi`'s callbacks, found by calling one (each call checks anew).
 * @throws {Error} when neither layout delivers a callback's stack arguments intact.
 */
export function stackArgumentLayout(koffi: KoffiCalls): StackArgumentLayout {
  const n = REGISTER_ARGUMENTS + 2;
  const called = koffi.proto("uintptr_t", new Array<string>(n).fill("uintptr_t"));
  if (delivers(koffi, "plain", n, called)) return "plain";
  if (delivers(koffi, "shifted", n, called)) return "shifted";
  throw new Error("koffi passes a callback's stack arguments (the 9th on) in an unknown layout");
}

/**
 * The parameters to register a callback with, and the function to register, so that `fn`
 * receives what C passed: unchanged where koffi reads stack arguments right, or where all of them
 * fit in registers; otherwise with a dummy parameter in the slot koffi reads first, dropped before
 * `fn` is called.
 * @param layout the layout of koffi's callbacks ({@link stackArgumentLayout}), asked only when
 *   `params` go past the registers
 * @param params the callback's koffi parameter types (integer or pointer types only)
 */
export function registeredForm(
  layout: () => StackArgumentLayout,
  params: string[],
  fn: (...args: never[]) => unknown,
): { params: string[]; fn: (...args: never[]) => unknown } {
  if (params.length <= REGISTER_ARGUMENTS) return { params, fn };
  if (params.some((p) => p === "double" || p === "float")) {
    throw new Error("a koffi callback with more than 8 arguments takes integers and pointers only");
  }
  if (layout() === "plain") return { params, fn };
  const shifted = [...params];
  shifted.splice(REGISTER_ARGUMENTS, 0, "uintptr_t");
  const dropped = (...args: never[]) => {
    args.splice(REGISTER_ARGUMENTS, 1);
    return fn(...args);
  };
  return { params: shifted, fn: dropped };
}
