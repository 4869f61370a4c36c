/**
 * The runtime-neutral FFI contract: what `src/` sees of Deno, Bun and Node.
 *
 * Each runtime adapter (`deno.ts`, `bun.ts`, `node.ts`) implements {@link FfiRuntime}. Pointers are
 * opaque {@link Ptr} values whose representation belongs to the adapter (Deno: `PointerObject |
 * null`, Bun and Node: a number), so hot paths never convert them; code outside `ffi/` only passes
 * them back, tests them with `isNull`, or turns them into numbers with `address`.
 *
 * @module
 */
import type { libcSymbols } from "./libc.ts";
import type { FfiType, SymbolDef, symbols } from "./symbols.ts";

declare const ptrBrand: unique symbol;

/** A native address as the current runtime represents it. Opaque outside `ffi/`. */
export type Ptr = { readonly [ptrBrand]: "Ptr" };

/** A C callback signature in neutral types. */
export interface CallbackDef {
  readonly parameters: readonly FfiType[];
  readonly result: FfiType;
}

/** The JS type a neutral parameter type takes. */
export type ParamValue<T extends FfiType> = T extends "ptr" ? Ptr
  : T extends "buf" ? ArrayBufferView | null
  : T extends "cstr" ? string | null
  : T extends "bool" ? boolean
  : T extends "i64" | "u64" | "usize" ? number | bigint
  : T extends "void" ? never
  : number;

/** The JS type a neutral result type gives. */
export type ResultValue<T extends FfiType> = T extends "void" ? void
  : T extends "ptr" | "buf" ? Ptr
  : T extends "cstr" ? string
  : T extends "bool" ? boolean
  : T extends "i64" | "u64" | "usize" ? bigint
  : number;

type Params<P extends readonly FfiType[]> = { -readonly [K in keyof P]: ParamValue<P[K]> };

/** A callable native function for a symbol definition. */
export type NativeFn<D extends CallbackDef> = (
  ...args: Params<D["parameters"]>
) => ResultValue<D["result"]>;

/** A native function that runs off the JS thread and resolves when the call returns. */
export type AsyncNativeFn<D extends CallbackDef> = (
  ...args: Params<D["parameters"]>
) => Promise<ResultValue<D["result"]>>;

/** The JS function a C callback invokes (callback arguments arrive as raw values). */
export type CallbackFn<D extends CallbackDef> = (
  ...args: CallbackArgs<D["parameters"]>
) => ResultValue<D["result"]>;

type CallbackArgs<P extends readonly FfiType[]> = { -readonly [K in keyof P]: CallbackArg<P[K]> };

/** Callback arguments: pointers of every kind arrive as {@link Ptr}. */
export type CallbackArg<T> = T extends "ptr" | "buf" | "cstr" ? Ptr
  : T extends "bool" ? boolean
  : T extends "i64" | "u64" | "usize" ? number | bigint
  : number;

type BlockingKeys<S> = {
  [K in keyof S]: S[K] extends { readonly mayBlock: true } ? K : never;
}[keyof S];

/** Symbols that never wait on Triton's threads: called synchronously. */
export type SyncFns<S extends Record<string, SymbolDef>> = {
  readonly [K in Exclude<keyof S, BlockingKeys<S>>]: NativeFn<S[K]>;
};

/** Symbols marked `mayBlock`: called off the JS thread, so callbacks can still run meanwhile. */
export type AsyncFns<S extends Record<string, SymbolDef>> = {
  readonly [K in BlockingKeys<S>]: AsyncNativeFn<S[K]>;
};

/** A library opened by an adapter. */
export interface OpenedLibrary<S extends Record<string, SymbolDef>> {
  readonly path: string;
  readonly sync: SyncFns<S>;
  readonly async: AsyncFns<S>;
}

/** One JavaScript runtime's FFI, behind the interface `src/` uses. */
export interface FfiRuntime {
  /** Which runtime this is. */
  readonly name: "deno" | "bun" | "node";
  /**
   * Whether a callback invoked on a foreign thread runs before that thread continues, so that its
   * return value and out-parameter writes reach C (Deno, Node: yes; Bun: no, calls are posted).
   */
  readonly callbacksReturnToForeignThreads: boolean;
  /** The NULL pointer. */
  readonly NULL: Ptr;
  /**
   * Opens a shared library and binds `defs`. Symbols missing from the library make it throw.
   * @throws {Error} when the library cannot be loaded or a symbol is missing.
   */
  open<S extends Record<string, SymbolDef>>(path: string, defs: S): OpenedLibrary<S>;
  /** Whether `p` is NULL. */
  isNull(p: Ptr): boolean;
  /** The address of `p` as a number (user-space addresses fit in 53 bits). */
  address(p: Ptr): number;
  /** A pointer for `address` (also used to pass small integers as `void* userp`). */
  fromAddress(address: number | bigint): Ptr;
  /** Reads the NUL-terminated UTF-8 string at `p` (`""` for NULL). */
  cstring(p: Ptr): string;
  /** A zero-copy view of `byteLength` bytes of native memory at `p`. */
  view(p: Ptr, byteLength: number): ArrayBuffer;
  /** The address of a JS typed array's first byte (stable while JS holds the array). */
  addressOf(view: ArrayBufferView): Ptr;
  /** Copies `dst.byteLength` bytes of native memory at `src` into `dst` (cheaper than a view for
   * a few bytes: no ArrayBuffer is made). */
  copyInto(src: Ptr, dst: ArrayBufferView): void;
  /**
   * A reader of the pointers stored in the `byteLength` bytes of native memory at `base`:
   * `read(offset)` is the pointer at `base + offset`, made without an FFI call where the runtime
   * allows (for slots of the native completion ring).
   */
  pointerReader(base: Ptr, byteLength: number): (offset: number) => Ptr;
  /**
   * Registers `fn` as a C function pointer that Triton's threads may call. Never closed: one per
   * callback kind for the life of the process. The callback does not keep the process alive.
   */
  callback<D extends CallbackDef>(def: D, fn: CallbackFn<D>): Ptr;
  /**
   * Compiles the C source file at `path` at run time, with the preprocessor macros `defines`,
   * and binds `symbols` from it (Bun: `cc()`, TinyCC). Absent on runtimes without a built-in C
   * compiler.
   */
  compile?<S extends Record<string, CallbackDef>>(
    path: string,
    defines: Readonly<Record<string, string>>,
    symbols: S,
  ): CompiledC<S>;
}

/** Functions compiled from C source: callable from JS, and as C function pointers. */
export interface CompiledC<S extends Record<string, CallbackDef>> {
  readonly call: { readonly [K in keyof S]: NativeFn<S[K]> };
  readonly pointers: { readonly [K in keyof S]: Ptr };
}

/** A loaded `libtritonserver.so`: the adapter, the bound API and libc (what `ffi/`'s native pieces
 * call through; `TritonLibrary` adds the {@link Binding} that owns them). */
export interface NativeLibrary {
  /** The runtime adapter. */
  readonly ffi: FfiRuntime;
  /** Path (or soname) the library was opened from. */
  readonly path: string;
  /** `TRITONSERVER_ApiVersion` of the loaded library. */
  readonly version: { readonly major: number; readonly minor: number };
  /** Symbols callable synchronously. */
  readonly api: SyncFns<typeof symbols>;
  /** Symbols that may wait on Triton threads (`mayBlock`): they return Promises. */
  readonly apiAsync: AsyncFns<typeof symbols>;
  /** libc's malloc/free/memcpy/dlopen/dlsym. */
  readonly libc: SyncFns<typeof libcSymbols>;
  /** The address of a function of the Triton library (for native code that calls it). */
  symbolAddress(name: string): Ptr;
  /** The address of `symbol` in the (already loaded) library at `path`. */
  addressIn(path: string, symbol: string): Ptr;
}
