/**
 * The Deno adapter: `Deno.dlopen`, `Deno.UnsafeCallback.threadSafe`, `Deno.UnsafePointerView`.
 *
 * Pointers are `Deno.PointerObject | null`. Symbols marked `mayBlock` are bound with
 * `nonblocking: true` (they run on a Deno worker thread and return Promises), so Triton's threads
 * can run JS callbacks while they wait.
 *
 * @module
 */
import { fixedArity } from "./arity.ts";
import { encodeCString } from "./cstring_cache.ts";
import type { FfiType, SymbolDef } from "./symbols.ts";
import type { CallbackDef, FfiRuntime, OpenedLibrary, Ptr } from "./types.ts";

type DenoType = Deno.NativeResultType;

/** Deno's type for a neutral one. A `cstr` parameter is passed as an encoded buffer. */
function denoType(t: FfiType): DenoType {
  switch (t) {
    case "ptr":
      return "pointer";
    case "cstr":
      return "buffer";
    case "buf":
      return "buffer";
    case "usize":
      return "usize";
    default:
      return t;
  }
}

/** Callback arguments: every pointer, strings and out-parameters too, arrives as a pointer. */
function callbackType(t: FfiType): DenoType {
  return t === "buf" || t === "cstr" ? "pointer" : denoType(t);
}

/** Encodes a JS string as a NUL-terminated UTF-8 buffer (null stays NULL). */
function cstr(s: string | null): Uint8Array | null {
  return s === null ? null : encodeCString(s);
}

function toPtr(p: Deno.PointerValue): Ptr {
  return p as unknown as Ptr;
}

function fromPtr(p: Ptr): Deno.PointerValue {
  return p as unknown as Deno.PointerValue;
}

/** Wraps a raw symbol so `cstr` parameters accept strings and `cstr` results come back as strings
 * (a wrapper of the symbol's arity: see arity.ts). */
function wrap(
  def: SymbolDef,
  raw: (...args: unknown[]) => unknown,
): (...args: unknown[]) => unknown {
  const conv = def.parameters.map((t) => (t === "cstr" ? toCString : undefined));
  const strResult = def.result === "cstr";
  const wide = def.result === "i64" || def.result === "u64" || def.result === "usize";
  if (!conv.some((c) => c !== undefined) && !strResult && !wide) return raw;
  const convert = (v: unknown) => convertResult(v, strResult, wide);
  const post = !strResult && !wide
    ? undefined
    : def.mayBlock
    ? (r: unknown) => (r as Promise<unknown>).then(convert)
    : convert;
  return fixedArity(def.parameters.length, raw, conv, post);
}

const toCString = (s: unknown) => cstr(s as string | null);

function convertResult(v: unknown, strResult: boolean, wide: boolean): unknown {
  if (strResult) return readCString(v as Deno.PointerValue);
  if (wide) return BigInt(v as number | bigint);
  return v;
}

function readCString(p: Deno.PointerValue): string {
  return p === null ? "" : Deno.UnsafePointerView.getCString(p);
}

const libcHelpers = {
  memmove: { parameters: ["buffer", "buffer", "usize"], result: "pointer" },
} as const;
let libcLib: Deno.DynamicLibrary<typeof libcHelpers>["symbols"] | undefined;

/** libc functions the adapter itself uses. */
function libc(): Deno.DynamicLibrary<typeof libcHelpers>["symbols"] {
  libcLib ??= Deno.dlopen("libc.so.6", libcHelpers).symbols;
  return libcLib;
}

/** The Deno implementation of {@link FfiRuntime}. */
export const denoRuntime: FfiRuntime = {
  name: "deno",
  callbacksReturnToForeignThreads: true,
  NULL: toPtr(null),

  open<S extends Record<string, SymbolDef>>(path: string, defs: S): OpenedLibrary<S> {
    const denoDefs: Record<string, Deno.ForeignFunction> = {};
    for (const [name, def] of Object.entries(defs)) {
      denoDefs[name] = {
        parameters: def.parameters.map(denoType) as Deno.NativeType[],
        result: def.result === "cstr" ? "pointer" : denoType(def.result),
        nonblocking: def.mayBlock === true,
      };
    }
    let lib: Deno.DynamicLibrary<Record<string, Deno.ForeignFunction>>;
    try {
      lib = Deno.dlopen(path, denoDefs);
    } catch (e) {
      // Deno words a failed dlopen "Could not open library: Could not open library: <dlerror>";
      // the loader's message says it once.
      if (e instanceof Error) e.message = e.message.replace(/^(Could not open library: )+/, "$1");
      throw e;
    }
    const sync: Record<string, unknown> = {};
    const async: Record<string, unknown> = {};
    for (const [name, def] of Object.entries(defs)) {
      const fn = wrap(def, lib.symbols[name] as (...args: unknown[]) => unknown);
      (def.mayBlock ? async : sync)[name] = fn;
    }
    return { path, sync, async } as unknown as OpenedLibrary<S>;
  },

  isNull(p: Ptr): boolean {
    return fromPtr(p) === null;
  },

  address(p: Ptr): number {
    return Number(Deno.UnsafePointer.value(fromPtr(p)));
  },

  fromAddress(address: number | bigint): Ptr {
    return toPtr(Deno.UnsafePointer.create(BigInt(address)));
  },

  cstring(p: Ptr): string {
    return readCString(fromPtr(p));
  },

  view(p: Ptr, byteLength: number): ArrayBuffer {
    const raw = fromPtr(p);
    if (raw === null || byteLength === 0) return new ArrayBuffer(0);
    return Deno.UnsafePointerView.getArrayBuffer(raw, byteLength);
  },

  addressOf(view: ArrayBufferView): Ptr {
    if (view.byteLength === 0) return toPtr(Deno.UnsafePointer.of(view as Uint8Array<ArrayBuffer>));
    // Reading .buffer moves a small typed array's elements out of the (moving) JS heap, so the
    // address stays valid while the array lives. memmove(p, p, 0) then returns p: a fast FFI call
    // instead of UnsafePointer.of, a slow one (bench/README.md, "Costs the code is shaped by").
    void view.buffer;
    const bytes = view as Uint8Array<ArrayBuffer>;
    return toPtr(libc().memmove(bytes, bytes, 0n));
  },

  copyInto(src: Ptr, dst: ArrayBufferView): void {
    const p = fromPtr(src);
    if (p !== null && dst.byteLength > 0) {
      Deno.UnsafePointerView.copyInto(p, dst as Uint8Array<ArrayBuffer>);
    }
  },

  pointerReader(base: Ptr, _byteLength: number): (offset: number) => Ptr {
    const view = new Deno.UnsafePointerView(fromPtr(base)!);
    return (offset) => toPtr(view.getPointer(offset));
  },

  callback<D extends CallbackDef>(def: D, fn: (...args: never[]) => unknown): Ptr {
    const cb = Deno.UnsafeCallback.threadSafe(
      {
        parameters: def.parameters.map(callbackType) as Deno.NativeType[],
        result: callbackType(def.result) as Deno.UnsafeCallbackDefinition["result"],
      },
      fn as unknown as Deno.UnsafeCallbackFunction,
    );
    // Threadsafe callbacks keep the event loop alive until unref'd; the binding holds its own
    // handle while requests are in flight instead (see ffi/keepalive.ts).
    cb.unref();
    return toPtr(cb.pointer);
  },
};
