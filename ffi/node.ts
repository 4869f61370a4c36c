/**
 * The Node adapter: `koffi`.
 *
 * Pointers are numbers (`uintptr_t` in koffi's type language, so no External objects are made on
 * hot paths); NULL is `0`. koffi runs a callback called from a foreign thread on the JS thread and
 * makes that thread wait, so return values reach C. Symbols marked `mayBlock` are called with
 * koffi's `fn.async`, off the JS thread.
 *
 * @module
 */
import { fixedArity } from "./arity.ts";
import { encodeCString } from "./cstring_cache.ts";
import {
  type KoffiCalls,
  registeredForm,
  type StackArgumentLayout,
  stackArgumentLayout,
} from "./koffi_stack_arguments.ts";
import type { FfiType, SymbolDef } from "./symbols.ts";
import type { CallbackDef, FfiRuntime, OpenedLibrary, Ptr } from "./types.ts";

/** A koffi-bound function. */
interface KoffiFn {
  (...args: unknown[]): unknown;
  async(...args: unknown[]): void;
}

/** The part of koffi this adapter uses. */
interface Koffi extends KoffiCalls {
  load(path: string): { func(name: string, result: string, params: string[]): KoffiFn };
  view(p: number, byteLength: number): ArrayBuffer;
  address(value: unknown): bigint;
  decode(p: number, type: string, length: number): unknown;
}

const koffi = ((await import("koffi" as string)) as { default: Koffi }).default;

function koffiType(t: FfiType): string {
  switch (t) {
    case "ptr":
      return "uintptr_t";
    case "buf":
      return "void *";
    case "cstr":
      return "const char *";
    case "bool":
      return "bool";
    case "i32":
      return "int32_t";
    case "u32":
      return "uint32_t";
    case "i64":
      return "int64_t";
    case "u64":
      return "uint64_t";
    case "usize":
      return "size_t";
    case "f64":
      return "double";
    case "void":
      return "void";
  }
}

/** Callback parameters: every pointer (strings and out-parameters too) arrives as an address. */
function koffiCallbackType(t: FfiType): string {
  return t === "buf" || t === "cstr" ? "uintptr_t" : koffiType(t);
}

/** Parameters: a `cstr` goes in as its encoded bytes (`ffi/cstring_cache.ts`: cached, and a
 * string holding a NUL is refused), as on Deno and Bun, not as a JS string koffi would encode per
 * call and C would read only up to its first NUL. */
function koffiParameterType(t: FfiType): string {
  return t === "cstr" ? "void *" : koffiType(t);
}

/** `fn` taking strings for its `cstr` parameters (see {@link koffiParameterType}). */
function withStrings(def: SymbolDef, fn: KoffiFn): KoffiFn {
  if (!def.parameters.includes("cstr")) return fn;
  const conv = def.parameters.map((t) => (t === "cstr" ? toCString : undefined));
  const wrapped = fixedArity(def.parameters.length, fn, conv) as KoffiFn;
  wrapped.async = (...args: unknown[]) => {
    // The call runs on another thread: the encoded strings stay referenced until it is done.
    const done = args.pop() as (err: unknown, value: unknown) => void;
    const converted = args.map((a, i) => (def.parameters[i] === "cstr" ? toCString(a) : a));
    fn.async(...converted, (err: unknown, value: unknown) => {
      void converted;
      done(err, value);
    });
  };
  return wrapped;
}

const toCString = (s: unknown) => (s === null ? null : encodeCString(s as string));

function toPtr(p: number): Ptr {
  return p as unknown as Ptr;
}

function num(p: Ptr): number {
  return p as unknown as number;
}

let protoCount = 0;
/** Where koffi's callbacks read stack arguments, found on the first callback that has any. */
let stackLayout: StackArgumentLayout | undefined;
const koffiStackLayout = () => (stackLayout ??= stackArgumentLayout(koffi));
let libcLib: { memcpy: KoffiFn } | undefined;

/** libc functions the adapter itself uses. */
function libc(): { memcpy: KoffiFn } {
  if (!libcLib) {
    const lib = koffi.load("libc.so.6");
    libcLib = { memcpy: lib.func("memcpy", "uintptr_t", ["void *", "uintptr_t", "size_t"]) };
  }
  return libcLib;
}

/** The Node (koffi) implementation of {@link FfiRuntime}. */
export const nodeRuntime: FfiRuntime = {
  name: "node",
  callbacksReturnToForeignThreads: true,
  NULL: toPtr(0),

  open<S extends Record<string, SymbolDef>>(path: string, defs: S): OpenedLibrary<S> {
    const lib = koffi.load(path);
    const sync: Record<string, unknown> = {};
    const async: Record<string, unknown> = {};
    for (const [name, def] of Object.entries(defs)) {
      const fn = withStrings(
        def,
        lib.func(name, koffiType(def.result), def.parameters.map(koffiParameterType)),
      );
      const wide = def.result === "i64" || def.result === "u64" || def.result === "usize";
      if (def.mayBlock) {
        async[name] = (...args: unknown[]) =>
          new Promise((resolve, reject) => {
            fn.async(...args, (err: unknown, value: unknown) => {
              if (err) reject(err);
              else resolve(wide ? BigInt(value as number) : value);
            });
          });
      } else {
        sync[name] = wide ? (...args: unknown[]) => BigInt(fn(...args) as number) : fn;
      }
    }
    return { path, sync, async } as unknown as OpenedLibrary<S>;
  },

  isNull(p: Ptr): boolean {
    return !num(p);
  },

  address(p: Ptr): number {
    return Number(num(p));
  },

  fromAddress(address: number | bigint): Ptr {
    return toPtr(Number(address));
  },

  cstring(p: Ptr): string {
    const a = num(p);
    return a ? (koffi.decode(a, "char", -1) as string) : "";
  },

  view(p: Ptr, byteLength: number): ArrayBuffer {
    const a = num(p);
    if (!a || byteLength === 0) return new ArrayBuffer(0);
    return koffi.view(a, byteLength);
  },

  addressOf(view: ArrayBufferView): Ptr {
    // Reading .buffer moves a small typed array's elements out of the (moving) JS heap, so the
    // address stays valid while the array lives.
    void view.buffer;
    return toPtr(Number(koffi.address(view)));
  },

  copyInto(src: Ptr, dst: ArrayBufferView): void {
    const a = num(src);
    if (a && dst.byteLength > 0) libc().memcpy(dst, a, dst.byteLength);
  },

  pointerReader(base: Ptr, byteLength: number): (offset: number) => Ptr {
    // Two 32-bit halves: user-space addresses fit in 53 bits, so the sum is exact.
    const u32 = new Uint32Array(this.view(base, byteLength));
    return (offset) => toPtr(u32[offset >> 2] + u32[(offset >> 2) + 1] * 4294967296);
  },

  callback<D extends CallbackDef>(def: D, fn: (...args: never[]) => unknown): Ptr {
    // More than 8 arguments: as koffi reads them (ffi/koffi_stack_arguments.ts)
    const form = registeredForm(koffiStackLayout, def.parameters.map(koffiCallbackType), fn);
    const proto = koffi.proto(
      `tritonffi_cb${protoCount++}`,
      koffiCallbackType(def.result),
      form.params,
    );
    return toPtr(Number(koffi.register(form.fn, koffi.pointer(proto))));
  },
};
