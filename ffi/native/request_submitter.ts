/**
 * The native request submitter: one call that builds an inference request from the request record
 * (`request_record.ts`) and submits it — `TRITONSERVER_InferenceRequestNew`, every input's
 * `AddInput` and `AppendInputData`, both callbacks and `TRITONSERVER_ServerInferAsync` — instead of
 * an FFI call per step. JS writes the record through typed arrays.
 *
 * Made on Node and Bun with the native callbacks: machine code generated at run time
 * (`routines.submit` of the binding's {@link NativePath}, e.g. `x86_64/submit.ts`), called through
 * libc `bsearch` with one element like the response reader. Measured side by side on the real core
 * (bench/README.md, "Between a completion and the next request"), it lowers Node's concurrency-1
 * latency and raises Bun's concurrency-128 throughput; on Deno, whose calls to Triton are already
 * cheap, concurrency 128 lost, so Deno builds requests call by call.
 * `TRITONFFI_REQUEST_SUBMITTER=on|off` overrides that choice (`on` where the platform allows).
 *
 * Requests with more than what `infer()` passes here (an id, requested outputs, parameters,
 * sequence flags, a trace; more than {@link MAX_SUBMIT_INPUTS} inputs; names and shapes that do not
 * fit the record) are built call by call on every runtime.
 *
 * @module
 */
import { mapMemory, os, PAGE_SIZE, placeCode } from "../os.ts";
import { encodeCString } from "../cstring_cache.ts";
import {
  InputRecord as I,
  MAX_SUBMIT_INPUTS,
  REQUEST_RECORD_BYTES,
  RequestLayout as L,
  SUBMIT_FUNCTIONS,
} from "./request_record.ts";
import { env } from "../runtime.ts";
import { TritonError } from "../triton_error.ts";
import type { NativeLibrary, Ptr } from "../types.ts";
import type { NativePath } from "./platform.ts";

/** See the module documentation. Not reentrant: one request at a time, on the JS thread. */
export class RequestSubmitter {
  readonly #lib: NativeLibrary;
  readonly #record: Ptr;
  /** The record's address. */
  readonly #base: number;
  readonly #u8: Uint8Array;
  readonly #u32: Uint32Array;
  readonly #code: Ptr;
  /** The next free byte of the string area. */
  #free: number = L.STRINGS;
  /** Where the string area's room begins after the model's name. */
  #modelEnd: number = L.STRINGS;
  #inputs = 0;
  /** What the header was last written for: unchanged fields are not written again (pointers by
   * their field's offset / 8). */
  readonly #pointers: (Ptr | undefined)[] = [];
  #model: string | undefined;
  /** Requests Triton took through this submitter. */
  submitted = 0;

  constructor(lib: NativeLibrary, record: Ptr, code: Ptr) {
    const { ffi } = lib;
    const buffer = ffi.view(record, REQUEST_RECORD_BYTES);
    this.#lib = lib;
    this.#record = record;
    this.#base = ffi.address(record);
    this.#u8 = new Uint8Array(buffer);
    this.#u32 = new Uint32Array(buffer);
    this.#code = code;
    SUBMIT_FUNCTIONS.forEach((name, i) => {
      this.#set(L.FUNCTIONS + 8 * i, ffi.address(lib.symbolAddress(name)));
    });
  }

  /**
   * Starts a request for `model` on `server`, its responses allocated by `allocator` with
   * `allocatorUserp` and delivered to `responseFn`, its release to `releaseFn`. False when the
   * name does not fit the record.
   * @throws {TritonError} INVALID_ARG when `model` holds a NUL character.
   */
  begin(
    server: Ptr,
    model: string,
    version: number,
    allocator: Ptr,
    allocatorUserp: Ptr,
    responseFn: Ptr,
    releaseFn: Ptr,
  ): boolean {
    this.#inputs = 0;
    if (this.#model !== model) {
      this.#model = undefined;
      this.#free = L.STRINGS;
      const at = this.#string(model);
      if (at === undefined) return false;
      this.#set(L.MODEL, this.#base + at);
      this.#model = model;
      this.#modelEnd = this.#free;
    }
    this.#free = this.#modelEnd; // the model's name stays at the start of the string area
    this.#setPointer(L.SERVER, server);
    this.#set(L.VERSION, version);
    this.#setPointer(L.ALLOCATOR, allocator);
    this.#setPointer(L.ALLOCATOR_USERP, allocatorUserp);
    this.#setPointer(L.RESPONSE_FN, responseFn);
    this.#setPointer(L.RELEASE_FN, releaseFn);
    return true;
  }

  /**
   * Adds an input (`datatype` Triton's code, `base` the data's address, `byteSize` bytes there).
   * False when it does not fit the record.
   * @throws {TritonError} INVALID_ARG when `name` holds a NUL character.
   */
  input(
    name: string,
    datatype: number,
    shape: readonly number[],
    base: number,
    byteSize: number,
    memoryType: number,
    memoryTypeId: number,
  ): boolean {
    if (this.#inputs === MAX_SUBMIT_INPUTS) return false;
    const at = this.#string(name);
    if (at === undefined) return false;
    const dims = shape.length;
    const shapeAt = this.#free;
    if (shapeAt + 8 * dims > REQUEST_RECORD_BYTES) return false;
    for (let d = 0; d < dims; d++) this.#set(shapeAt + 8 * d, shape[d]);
    this.#free = shapeAt + 8 * dims;
    const o = L.INPUTS + L.INPUT_SIZE * this.#inputs++;
    this.#set(o + I.NAME, this.#base + at);
    this.#set(o + I.DATATYPE, datatype);
    this.#set(o + I.SHAPE, this.#base + shapeAt);
    this.#set(o + I.DIM_COUNT, dims);
    this.#set(o + I.BASE, base);
    this.#set(o + I.BYTE_SIZE, byteSize);
    this.#set(o + I.MEMORY_TYPE, memoryType);
    this.#set(o + I.MEMORY_TYPE_ID, memoryTypeId);
    return true;
  }

  /**
   * Builds and submits the request begun, its callbacks receiving `userp` (an address). True
   * when Triton took it; false when a call failed: {@link error} is its error (the caller's to
   * delete) and {@link request} the request made, if any (the caller's to delete).
   */
  submit(userp: number): boolean {
    const { ffi } = this.#lib;
    this.#set(L.USERP, userp);
    this.#set(L.INPUT_COUNT, this.#inputs);
    const ok = !ffi.isNull(os(ffi).sync.bsearch(this.#record, this.#record, 1n, 1n, this.#code));
    if (ok) this.submitted++;
    return ok;
  }

  /** The request the last {@link submit} made (NULL when none was made). */
  get request(): Ptr {
    return this.#pointer(L.REQUEST);
  }

  /** The error of the call that failed in the last {@link submit}. */
  get error(): Ptr {
    return this.#pointer(L.ERROR);
  }

  #pointer(offset: number): Ptr {
    const u32 = this.#u32;
    return this.#lib.ffi.fromAddress(u32[offset >> 2] + u32[(offset >> 2) + 1] * 4294967296);
  }

  /** Copies `s` NUL-terminated into the string area; its offset, or undefined without room. */
  #string(s: string): number | undefined {
    const bytes = encodeCString(s);
    const at = this.#free;
    const end = at + bytes.length;
    if (end > REQUEST_RECORD_BYTES - 8) return undefined;
    this.#u8.set(bytes, at);
    this.#free = (end + 7) & ~7;
    return at;
  }

  /** Writes pointer `p`'s address at `offset`, unless the field already holds it. */
  #setPointer(offset: number, p: Ptr): void {
    if (this.#pointers[offset >> 3] === p) return;
    this.#set(offset, this.#lib.ffi.address(p));
    this.#pointers[offset >> 3] = p;
  }

  /** Writes the 64-bit integer `value` (in ±2^53; negative as two's complement) at `offset`. */
  #set(offset: number, value: number): void {
    const i = offset >> 2;
    this.#u32[i] = value >>> 0;
    this.#u32[i + 1] = Math.floor(value / 4294967296);
  }
}

/**
 * The submitter for this runtime, or why there is none (requests are then built call by call).
 * @param path the binding's native path (`callbacks.nativePath`; `"none"` with the JS callbacks).
 * @throws {TritonError} INVALID_ARG when `TRITONFFI_REQUEST_SUBMITTER` is neither `on` nor `off`.
 */
export function createRequestSubmitter(
  lib: NativeLibrary,
  path: NativePath,
): RequestSubmitter | string {
  const setting = env("TRITONFFI_REQUEST_SUBMITTER");
  if (setting !== undefined && setting !== "" && setting !== "on" && setting !== "off") {
    throw new TritonError(
      "INVALID_ARG",
      `TRITONFFI_REQUEST_SUBMITTER must be "on" or "off" (or unset), not ${
        JSON.stringify(setting)
      }`,
    );
  }
  if (setting === "off") return "TRITONFFI_REQUEST_SUBMITTER=off";
  if (path.kind === "none") return "the JS callbacks";
  const { routines } = path;
  if (routines === undefined) return `no native routines for ${path.arch}`;
  const { ffi } = lib;
  if (setting !== "on" && ffi.name === "deno") return "Deno's calls are cheap";
  try {
    const code = placeCode(ffi, PAGE_SIZE, () => routines.submit(), routines.flush);
    return new RequestSubmitter(lib, mapMemory(ffi, REQUEST_RECORD_BYTES), code);
  } catch (e) {
    return `the submitter could not be placed: ${e instanceof Error ? e.message : String(e)}`;
  }
}
