/**
 * Bun's calls that may block (`mayBlock` in the symbol table), run off the JS thread.
 *
 * `bun:ffi` calls C on the JS thread. A call that waits — `TRITONSERVER_ServerNew` loading the
 * models, `TRITONSERVER_ServerStop` unloading them, a model load — would stop the event loop for
 * its whole length (timers, I/O, other requests' responses). Deno's `nonblocking` symbols and
 * koffi's `fn.async` run such calls on another thread; here `ffi/native/c/blocking_call.c`,
 * compiled by `cc()` on first use, starts each call on a thread of its own and reports its end
 * through a threadsafe `JSCallback` (Bun posts it to the JS thread; the C thread does not wait for
 * JS).
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { encodeCString } from "./cstring_cache.ts";
import type { FfiType, SymbolDef } from "./symbols.ts";

/** The part of `bun:ffi` used here. */
export interface BlockingCallsFfi {
  cc(options: {
    source: string;
    symbols: Record<string, { args: string[]; returns: string }>;
  }): { symbols: Record<string, (...args: unknown[]) => unknown> };
  ptr(view: ArrayBufferView): number;
  JSCallback: new (
    fn: (...args: never[]) => unknown,
    def: { args: string[]; returns: string; threadsafe: boolean },
  ) => { ptr: number };
}

/** How many arguments `tritonffi_blocking_call` passes. */
const MAX_ARGUMENTS = 6;

/** A call in flight: what settles it, and what must stay alive until it returns. */
interface Pending {
  resolve(result: bigint): void;
  result: BigUint64Array;
  keep: unknown[];
}

/**
 * Why `def` cannot be called through {@link BlockingCalls} (more than six arguments, or a
 * floating-point one, which travels in other registers), or `undefined` when it can.
 */
export function unsupportedBlockingCall(def: SymbolDef): string | undefined {
  if (def.parameters.length > MAX_ARGUMENTS) {
    return `it takes ${def.parameters.length} arguments (at most ${MAX_ARGUMENTS})`;
  }
  if (def.parameters.includes("f64") || def.result === "f64") {
    return "it passes a floating-point value";
  }
  return undefined;
}

/** Runs calls that may block on threads of their own; one per opened library. */
export class BlockingCalls {
  readonly #ffi: BlockingCallsFfi;
  #start: ((...args: unknown[]) => unknown) | undefined;
  #done = 0;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  /** A ref'd timer while calls are in flight: Bun's JSCallback alone does not keep the process
   * alive, and the awaited result must arrive. */
  #keepAlive: ReturnType<typeof setInterval> | undefined;

  constructor(ffi: BlockingCallsFfi) {
    this.#ffi = ffi;
  }

  /**
   * Calls the C function at `address` (of signature `def`) with `args` on a new thread.
   * Arguments are given as to the synchronous symbol (strings for `cstr`, TypedArrays for
   * `buf`); resolves with the raw 64-bit result (see {@link decodeResult}).
   * @throws {Error} when the thread cannot be started (the call did not run).
   */
  call(address: number, def: SymbolDef, args: readonly unknown[]): Promise<bigint> {
    const keep: unknown[] = [];
    const words = new BigUint64Array(MAX_ARGUMENTS);
    def.parameters.forEach((type, i) => (words[i] = this.#word(type, args[i], keep)));
    const result = new BigUint64Array(1);
    const id = this.#nextId++;
    if (this.#nextId > 0x7fffffff) this.#nextId = 1;
    return new Promise<bigint>((resolve, reject) => {
      const start = this.#compiled();
      this.#pending.set(id, { resolve, result, keep: [keep, words] });
      this.#keepAlive ??= setInterval(() => {}, 2 ** 30);
      const rc = start(address, this.#address(words), this.#address(result), id, this.#done);
      if (rc !== 0) {
        this.#settled(id);
        reject(new Error(`cannot start a thread for a blocking call (error ${rc})`));
      }
    });
  }

  #compiled(): (...args: unknown[]) => unknown {
    if (this.#start) return this.#start;
    const source = fileURLToPath(new URL("./native/c/blocking_call.c", import.meta.url));
    const lib = this.#ffi.cc({
      source,
      symbols: {
        tritonffi_blocking_call: { args: ["ptr", "ptr", "ptr", "i32", "ptr"], returns: "i32" },
      },
    });
    const done = new this.#ffi.JSCallback((id: number) => {
      const pending = this.#settled(id);
      pending?.resolve(pending.result[0]);
    }, { args: ["i32"], returns: "void", threadsafe: true });
    this.#done = done.ptr;
    this.#start = lib.symbols.tritonffi_blocking_call;
    return this.#start;
  }

  #settled(id: number): Pending | undefined {
    const pending = this.#pending.get(id);
    this.#pending.delete(id);
    if (this.#pending.size === 0 && this.#keepAlive !== undefined) {
      clearInterval(this.#keepAlive);
      this.#keepAlive = undefined;
    }
    return pending;
  }

  /** The address of `view`'s bytes, which the C thread reads or writes after this call returns:
   * reading `.buffer` first gives a small typed array a backing store of its own, at an address
   * that stays. */
  #address(view: ArrayBufferView): number {
    void view.buffer;
    return this.#ffi.ptr(view);
  }

  /** One argument as the 64-bit word the C thread passes. */
  #word(type: FfiType, value: unknown, keep: unknown[]): bigint {
    switch (type) {
      case "ptr":
        return value === null || value === undefined ? 0n : BigInt(value as number | bigint);
      case "buf": {
        const view = value as ArrayBufferView | null | undefined;
        // An empty array (a count of 0 goes with it) has no address: NULL.
        if (view === null || view === undefined || view.byteLength === 0) return 0n;
        keep.push(view);
        return BigInt(this.#address(view));
      }
      case "cstr": {
        if (value === null || value === undefined) return 0n;
        const bytes = encodeCString(value as string);
        keep.push(bytes);
        return BigInt(this.#address(bytes));
      }
      case "bool":
        return value ? 1n : 0n;
      case "i32":
      case "u32":
      case "i64":
      case "u64":
      case "usize":
        return BigInt.asUintN(64, BigInt(value as number | bigint));
      default:
        throw new Error(`a ${type} argument cannot be passed to a blocking call`);
    }
  }
}

/** The raw 64-bit result of a blocking call as the synchronous symbol returns it (a pointer as a
 * number or `null`, 64-bit integers as BigInt); `cstr` results go through `readCString`. */
export function decodeResult(
  type: FfiType,
  raw: bigint,
  readCString: (p: number) => string,
): unknown {
  switch (type) {
    case "void":
      return undefined;
    case "ptr":
    case "buf":
      return raw === 0n ? null : Number(raw);
    case "cstr":
      return raw === 0n ? "" : readCString(Number(raw));
    case "bool":
      return (raw & 0xffn) !== 0n;
    case "i32":
      return Number(BigInt.asIntN(32, raw));
    case "u32":
      return Number(BigInt.asUintN(32, raw));
    case "i64":
      return BigInt.asIntN(64, raw);
    default:
      return raw;
  }
}
