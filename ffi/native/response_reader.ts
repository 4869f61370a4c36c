/**
 * The native response reader: one call that reads what the binding needs of a response into the
 * response record (`response_record.ts`), which JS then reads through typed arrays — instead of
 * an FFI call per field, and a copy call per name, shape and small output.
 *
 * - Deno and Node (paths `"x86_64"`, `"a64"`: `platform.ts`): machine code generated at run time
 *   (`routines.reader`, e.g. `x86_64/reader.ts`),
 *   called through libc `bsearch` with one element, which calls its comparator — the reader —
 *   once with `(key, base)` = `(response, record)`: a plain library call, which Deno makes on its
 *   fast path (a function pointer called from JS is not; bench/README.md, "Costs the code is
 *   shaped by") and koffi makes like any other.
 *   `bsearch` returns `base` when the comparator returned 0.
 * - Bun (`"bun-cc"`): `c/response_reader.c` compiled by `cc()`.
 *
 * Used with the native callbacks only (`TRITONFFI_CALLBACKS=js` reads field by field, which keeps
 * that path tested as the fallback of every runtime).
 *
 * @module
 */
import { LIBC_PATH } from "../libc.ts";
import { mapMemory, os, PAGE_SIZE, placeCode } from "../os.ts";
import { RECORD_BYTES, recordDefines } from "./response_record.ts";
import type { NativeLibrary, Ptr } from "../types.ts";
import type { NativePath } from "./platform.ts";
import { fileURLToPath } from "node:url";

/** The record and the function that fills it. */
export class ResponseReader {
  /** The record's bytes. */
  readonly u8: Uint8Array;
  readonly u32: Uint32Array;
  readonly i32: Int32Array;
  readonly f64: Float64Array;
  readonly i64: BigInt64Array;
  /** The record's address. */
  readonly record: Ptr;
  readonly #pointerAt: (offset: number) => Ptr;
  readonly #read: (response: Ptr) => boolean;

  constructor(lib: NativeLibrary, record: Ptr, read: (response: Ptr) => boolean) {
    const buffer = lib.ffi.view(record, RECORD_BYTES);
    this.record = record;
    this.u8 = new Uint8Array(buffer);
    this.u32 = new Uint32Array(buffer);
    this.i32 = new Int32Array(buffer);
    this.f64 = new Float64Array(buffer);
    this.i64 = new BigInt64Array(buffer);
    this.#pointerAt = lib.ffi.pointerReader(record, RECORD_BYTES);
    this.#read = read;
  }

  /** Reads `response` into the record: true when read, false when a call failed (its
   * `TRITONSERVER_Error*` is at `CALL_ERROR`, the caller's to delete). */
  read(response: Ptr): boolean {
    return this.#read(response);
  }

  /** The pointer stored at `offset`. */
  pointer(offset: number): Ptr {
    return this.#pointerAt(offset);
  }

  /** The `uint64_t` at `offset` (below 2^53). */
  u64(offset: number): number {
    return this.u32[offset >> 2] + this.u32[(offset >> 2) + 1] * 4294967296;
  }

  /** The `int64_t` at `offset` (in ±2^53). */
  i64At(offset: number): number {
    return this.u32[offset >> 2] + this.i32[(offset >> 2) + 1] * 4294967296;
  }
}

const symbols = {
  tritonffi_reader_configure: {
    parameters: ["ptr", "ptr", "ptr", "ptr", "ptr", "ptr", "ptr"],
    result: "void",
  },
  tritonffi_read_response: { parameters: ["ptr", "ptr"], result: "i32" },
} as const;

/** The Triton functions the reader calls, in `tritonffi_reader_configure`'s order. */
const TRITON_FUNCTIONS = [
  "TRITONSERVER_InferenceResponseError",
  "TRITONSERVER_InferenceResponseOutputCount",
  "TRITONSERVER_InferenceResponseOutput",
  "TRITONSERVER_InferenceResponseModel",
  "TRITONSERVER_InferenceResponseId",
  "TRITONSERVER_InferenceResponseParameterCount",
  "TRITONSERVER_InferenceResponseParameter",
] as const;

/**
 * Builds the reader of `path` (C on `"bun-cc"`, else its generated routine).
 * @throws {Error} where it is unavailable (path `"none"`, executable memory refused, no C
 *   compiler): the caller reads field by field.
 */
export function createResponseReader(lib: NativeLibrary, path: NativePath): ResponseReader {
  const { ffi } = lib;
  const { kind, routines } = path;
  if (kind === "none") throw new Error(`no native response reader: ${path.reason}`);
  if (kind !== "bun-cc" && routines === undefined) {
    throw new Error(`no native routines for ${path.arch}`);
  }
  const record = mapMemory(ffi, RECORD_BYTES);
  const fns = TRITON_FUNCTIONS.map((name) => lib.symbolAddress(name));

  if (kind === "bun-cc" && ffi.compile) {
    const source = fileURLToPath(new URL("./c/response_reader.c", import.meta.url));
    const c = ffi.compile(source, recordDefines(), symbols);
    c.call.tritonffi_reader_configure(fns[0], fns[1], fns[2], fns[3], fns[4], fns[5], fns[6]);
    const read = c.call.tritonffi_read_response;
    return new ResponseReader(lib, record, (response) => read(response, record) === 0);
  }

  const address = (p: Ptr) => BigInt(ffi.address(p));
  const [responseError, outputCount, output, model, id, parameterCount, parameter] = fns.map(
    address,
  );
  const generated = routines!;
  const targets = {
    responseError,
    outputCount,
    output,
    model,
    id,
    parameterCount,
    parameter,
    memcpy: address(lib.addressIn(LIBC_PATH, "memcpy")),
    memccpy: address(lib.addressIn(LIBC_PATH, "memccpy")),
  };
  const code = placeCode(ffi, PAGE_SIZE, () => generated.reader(targets), generated.flush);
  const { bsearch } = os(ffi).sync;
  return new ResponseReader(
    lib,
    record,
    (response) => !ffi.isNull(bsearch(response, record, 1n, 1n, code)),
  );
}
