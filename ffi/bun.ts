/**
 * The Bun adapter: `bun:ffi` (`dlopen`, `JSCallback`, `cc`).
 *
 * Pointers are numbers (NULL may arrive as `null` or `0`). Bun posts a threadsafe `JSCallback`
 * to the JS thread and lets the foreign thread go on at once, so a JS callback cannot hand a value
 * back to Triton: the response allocator is compiled from C source at run time with `cc()`
 * (TinyCC, built into Bun; nothing is prebuilt): see `compile`. Calls marked `mayBlock` run on a
 * thread of their own (bun_blocking_calls.ts), so the event loop goes on while Triton loads or
 * stops.
 *
 * @module
 */
import { fixedArity } from "./arity.ts";
import { BlockingCalls, decodeResult, unsupportedBlockingCall } from "./bun_blocking_calls.ts";
import { encodeCString } from "./cstring_cache.ts";
import type { FfiType, SymbolDef } from "./symbols.ts";
import type { CallbackDef, CompiledC, FfiRuntime, OpenedLibrary, Ptr } from "./types.ts";

/** The part of `bun:ffi` this adapter uses. */
interface BunFfi {
  dlopen(
    path: string,
    defs: Record<string, { args: string[]; returns: string }>,
  ): { symbols: Record<string, ((...args: unknown[]) => unknown) & { ptr: number }> };
  cc(options: {
    source: string;
    define: Record<string, string>;
    symbols: Record<string, { args: string[]; returns: string }>;
  }): { symbols: Record<string, ((...args: unknown[]) => unknown) & { ptr: number }> };
  ptr(view: ArrayBufferView): number;
  toArrayBuffer(p: number, byteOffset: number, byteLength: number): ArrayBuffer;
  CString: new (p: number) => { toString(): string };
  JSCallback: new (
    fn: (...args: never[]) => unknown,
    def: { args: string[]; returns: string; threadsafe: boolean },
  ) => { ptr: number };
}

const ffi = (await import("bun:" + "ffi")) as BunFfi;

function bunType(t: FfiType): string {
  switch (t) {
    case "ptr":
    case "buf":
      return "ptr";
    case "cstr":
      return "ptr";
    default:
      return t;
  }
}

function toPtr(p: number | null): Ptr {
  return p as unknown as Ptr;
}

function num(p: Ptr): number {
  return (p as unknown as number | null) ?? 0;
}

function cstr(s: string | null): Uint8Array | null {
  return s === null ? null : encodeCString(s);
}

function readCString(p: number | null): string {
  return p ? new ffi.CString(p).toString() : "";
}

/** Wraps a raw symbol so `cstr` parameters accept strings and `cstr`/64-bit results come back as
 * strings/BigInts (a wrapper of the symbol's arity: see arity.ts). */
function wrap(
  def: SymbolDef,
  raw: (...args: unknown[]) => unknown,
): (...args: unknown[]) => unknown {
  const conv = def.parameters.map((t) => (t === "cstr" ? toCString : undefined));
  const strResult = def.result === "cstr";
  const wide = def.result === "i64" || def.result === "u64" || def.result === "usize";
  if (!conv.some((c) => c !== undefined) && !strResult && !wide) return raw;
  const post = strResult
    ? (r: unknown) => readCString(r as number | null)
    : wide
    ? (r: unknown) => BigInt(r as number | bigint)
    : undefined;
  return fixedArity(def.parameters.length, raw, conv, post);
}

const toCString = (s: unknown) => cstr(s as string | null);

let libcLib: { memcpy(dst: ArrayBufferView, src: number, n: number): unknown } | undefined;

/** libc functions the adapter itself uses. */
function libc(): { memcpy(dst: ArrayBufferView, src: number, n: number): unknown } {
  libcLib ??= ffi.dlopen("libc.so.6", {
    memcpy: { args: ["ptr", "ptr", "u64"], returns: "ptr" },
  }).symbols as unknown as { memcpy(dst: ArrayBufferView, src: number, n: number): unknown };
  return libcLib;
}

/** The Bun implementation of {@link FfiRuntime}. */
export const bunRuntime: FfiRuntime = {
  name: "bun",
  callbacksReturnToForeignThreads: false,
  NULL: toPtr(null),

  open<S extends Record<string, SymbolDef>>(path: string, defs: S): OpenedLibrary<S> {
    const bunDefs: Record<string, { args: string[]; returns: string }> = {};
    for (const [name, def] of Object.entries(defs)) {
      bunDefs[name] = { args: def.parameters.map(bunType), returns: bunType(def.result) };
    }
    const lib = ffi.dlopen(path, bunDefs);
    const sync: Record<string, unknown> = {};
    const async: Record<string, unknown> = {};
    let blocking: BlockingCalls | undefined;
    for (const [name, def] of Object.entries(defs)) {
      if (def.mayBlock) {
        const unsupported = unsupportedBlockingCall(def);
        if (unsupported) {
          throw new Error(`${name} cannot be called off the JS thread: ${unsupported}`);
        }
        const address = lib.symbols[name].ptr;
        async[name] = async (...args: unknown[]) => {
          blocking ??= new BlockingCalls(ffi);
          return decodeResult(def.result, await blocking.call(address, def, args), readCString);
        };
      } else {
        sync[name] = wrap(def, lib.symbols[name]);
      }
    }
    return { path, sync, async } as unknown as OpenedLibrary<S>;
  },

  isNull(p: Ptr): boolean {
    return !(p as unknown as number | null);
  },

  address(p: Ptr): number {
    return num(p);
  },

  fromAddress(address: number | bigint): Ptr {
    return toPtr(Number(address));
  },

  cstring(p: Ptr): string {
    return readCString(num(p));
  },

  view(p: Ptr, byteLength: number): ArrayBuffer {
    const a = num(p);
    if (a === 0 || byteLength === 0) return new ArrayBuffer(0);
    return ffi.toArrayBuffer(a, 0, byteLength);
  },

  addressOf(view: ArrayBufferView): Ptr {
    // Reading .buffer gives a small typed array a backing store of its own (a stable address).
    void view.buffer;
    return toPtr(ffi.ptr(view));
  },

  copyInto(src: Ptr, dst: ArrayBufferView): void {
    const a = num(src);
    if (a !== 0 && dst.byteLength > 0) libc().memcpy(dst, a, dst.byteLength);
  },

  pointerReader(base: Ptr, byteLength: number): (offset: number) => Ptr {
    // Two 32-bit halves: user-space addresses fit in 53 bits, so the sum is exact.
    const u32 = new Uint32Array(this.view(base, byteLength));
    return (offset) => toPtr(u32[offset >> 2] + u32[(offset >> 2) + 1] * 4294967296);
  },

  callback<D extends CallbackDef>(def: D, fn: (...args: never[]) => unknown): Ptr {
    const cb = new ffi.JSCallback(fn, {
      args: def.parameters.map(bunType),
      returns: bunType(def.result),
      threadsafe: true,
    });
    return toPtr(cb.ptr);
  },

  compile<S extends Record<string, CallbackDef>>(
    path: string,
    defines: Readonly<Record<string, string>>,
    symbols: S,
  ): CompiledC<S> {
    const defs: Record<string, { args: string[]; returns: string }> = {};
    for (const [name, def] of Object.entries(symbols)) {
      defs[name] = { args: def.parameters.map(bunType), returns: bunType(def.result) };
    }
    const lib = ffi.cc({ source: path, define: { ...defines }, symbols: defs });
    const pointers: Record<string, Ptr> = {};
    for (const name of Object.keys(symbols)) pointers[name] = toPtr(lib.symbols[name].ptr);
    return { call: lib.symbols, pointers } as unknown as CompiledC<S>;
  },
};
