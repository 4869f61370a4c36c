/**
 * `NativeDeletes`: the deletes of Triton objects the binding is done with, off the JS thread when
 * there are enough of them. One per {@link Binding}.
 *
 * `TRITONSERVER_InferenceResponseDelete` returns a response's buffers to the allocator (`free` of
 * memory that Triton's threads allocated, which contends for glibc's arena locks), and
 * `TRITONSERVER_InferenceRequestDelete` frees a released request: on a busy stream or at high
 * concurrency they were the JS thread's largest cost. Here they are queued and run together on a
 * later macrotask; a batch of at least {@link OFFLOAD_MIN} runs on another thread, as one libc
 * `lfind` over the batch made off the JS thread (`mayBlock`: Deno `nonblocking`, koffi `fn.async`,
 * Bun a thread of its own), whose comparator (`routines.deleteEach`, e.g. `x86_64/delete_each.ts`,
 * or `c/delete_each.c` on Bun) deletes each item and returns "not found". At most one batch is in
 * flight; what is queued meanwhile goes in the next one. Smaller batches, and every batch where the
 * comparator cannot be made (the JS callbacks, whose allocator would be called back from that
 * thread) or with `TRITONFFI_DELETE_THREAD=off`, are deleted on the JS thread.
 *
 * {@link drain} is what `Server.stop()` awaits before Triton's stop and before its delete: once
 * it resolves, nothing queued is left and no batch is in flight.
 *
 * @module
 */
import { macrotask } from "../macrotask.ts";
import { os, PAGE_SIZE, placeCode } from "../os.ts";
import { env } from "../runtime.ts";
import { TritonError } from "../triton_error.ts";
import type { NativeLibrary, Ptr } from "../types.ts";
import type { NativePath } from "./platform.ts";
import { fileURLToPath } from "node:url";

/** The smallest batch handed to another thread: below it, a thread hop costs more than it saves. */
export const OFFLOAD_MIN = 32;

/** What a batch off the JS thread needs: the comparator and the table it reads. */
interface Offload {
  /** `int (*)(const void* table, const void* item)`. */
  readonly compare: Ptr;
  /** `[ResponseDelete, RequestDelete]`'s addresses: the comparator's key. */
  readonly table: BigUint64Array;
}

const bunSymbols = {
  tritonffi_delete_each: { parameters: ["ptr", "ptr"], result: "i32" },
} as const;

/**
 * The comparator for this runtime, or why there is none.
 * @param path the binding's native path (`callbacks.nativePath`; `"none"` with the JS callbacks,
 *   whose allocator would be called back from the deleting thread).
 * @throws {TritonError} INVALID_ARG when `TRITONFFI_DELETE_THREAD` is neither `on` nor `off`.
 */
function makeOffload(lib: NativeLibrary, path: NativePath): Offload | string {
  const setting = env("TRITONFFI_DELETE_THREAD");
  if (setting !== undefined && setting !== "" && setting !== "on" && setting !== "off") {
    throw new TritonError(
      "INVALID_ARG",
      `TRITONFFI_DELETE_THREAD must be "on" or "off" (or unset), not ${JSON.stringify(setting)}`,
    );
  }
  if (setting === "off") return "TRITONFFI_DELETE_THREAD=off";
  if (path.kind === "none") return "the JS callbacks";
  const { ffi } = lib;
  const { routines } = path;
  if (path.kind !== "bun-cc" && routines === undefined) {
    return `no native routines for ${path.arch}`;
  }
  const table = new BigUint64Array(new ArrayBuffer(16));
  table[0] = BigInt(ffi.address(lib.symbolAddress("TRITONSERVER_InferenceResponseDelete")));
  table[1] = BigInt(ffi.address(lib.symbolAddress("TRITONSERVER_InferenceRequestDelete")));
  try {
    if (path.kind === "bun-cc" && ffi.compile) {
      const source = fileURLToPath(new URL("./c/delete_each.c", import.meta.url));
      const c = ffi.compile(source, {}, bunSymbols);
      return { compare: c.pointers.tritonffi_delete_each, table };
    }
    return {
      compare: placeCode(ffi, PAGE_SIZE, () => routines!.deleteEach(), routines!.flush),
      table,
    };
  } catch (e) {
    return `the comparator could not be made: ${e instanceof Error ? e.message : e}`;
  }
}

/** Queued deletes of responses and requests; see the module documentation. */
export class NativeDeletes {
  readonly #lib: NativeLibrary;
  readonly #offload: Offload | undefined;
  /** Why batches stay on the JS thread, or undefined when they may leave it. */
  readonly onJsThreadReason: string | undefined;
  #responses: Ptr[] = [];
  #requests: Ptr[] = [];
  #scheduled = false;
  #inFlight: Promise<void> | undefined;
  /** The arrays the batch in flight is read from, held until its call returns. */
  #batch: { items: Uint32Array; count: BigUint64Array } | undefined;
  /** Batches deleted off the JS thread so far (for tests and the bench). */
  batchesOffThread = 0;
  readonly #run = () => {
    this.#scheduled = false;
    this.#flush();
  };

  /**
   * @param path the binding's native path (batches may leave the JS thread only when it is not
   *   `"none"`).
   * @throws {TritonError} INVALID_ARG when `TRITONFFI_DELETE_THREAD` is neither `on` nor `off`.
   */
  constructor(lib: NativeLibrary, path: NativePath) {
    this.#lib = lib;
    const offload = makeOffload(lib, path);
    if (typeof offload === "string") this.onJsThreadReason = offload;
    else this.#offload = offload;
  }

  /** Objects queued, not counting a batch in flight. */
  get queued(): number {
    return this.#responses.length + this.#requests.length;
  }

  /** Whether a batch is being deleted off the JS thread now. */
  get inFlight(): boolean {
    return this.#inFlight !== undefined;
  }

  /** Deletes the response `p` (`TRITONSERVER_InferenceResponseDelete`) soon. Never throws. */
  response(p: Ptr): void {
    this.#responses.push(p);
    this.#schedule();
  }

  /** Deletes the released request `p` (`TRITONSERVER_InferenceRequestDelete`) soon. */
  request(p: Ptr): void {
    this.#requests.push(p);
    this.#schedule();
  }

  /** Deletes what is queued here and now, on the JS thread (a batch in flight goes on). */
  now(): void {
    const { api } = this.#lib;
    while (this.queued > 0) {
      const responses = this.#responses;
      const requests = this.#requests;
      this.#responses = [];
      this.#requests = [];
      for (const p of responses) api.TRITONSERVER_InferenceResponseDelete(p);
      for (const p of requests) api.TRITONSERVER_InferenceRequestDelete(p);
    }
  }

  /** Resolves once nothing is queued and no batch is in flight (what is queued is deleted here,
   * after the batch in flight). Never rejects. */
  async drain(): Promise<void> {
    while (this.#inFlight) await this.#inFlight;
    this.now();
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight) return;
    this.#scheduled = true;
    macrotask(this.#run);
  }

  #flush(): void {
    if (this.#inFlight) return;
    const n = this.queued;
    if (n === 0) return;
    const offload = this.#offload;
    if (offload === undefined || n < OFFLOAD_MIN) return this.now();
    const { ffi } = this.#lib;
    // Each item a 64-bit address in (low, high) 32-bit halves; a request's has bit 0 set.
    const items = new Uint32Array(new ArrayBuffer(n * 8));
    let i = 0;
    for (const [list, tag] of [[this.#responses, 0], [this.#requests, 1]] as const) {
      for (const p of list) {
        const address = ffi.address(p);
        items[i++] = (address % 4294967296) + tag;
        items[i++] = Math.floor(address / 4294967296);
      }
    }
    const responses = this.#responses;
    const requests = this.#requests;
    this.#responses = [];
    this.#requests = [];
    const count = new BigUint64Array(new ArrayBuffer(8));
    count[0] = BigInt(n);
    this.#batch = { items, count };
    const done = () => {
      this.#inFlight = this.#batch = undefined;
      this.batchesOffThread++;
      this.#flush();
    };
    const failed = (e: unknown) => {
      // The call did not start (Bun could not start its thread): nothing of the batch was
      // deleted, so it is deleted here.
      console.error("tritonffi: a batch of deletes stays on the JS thread:", e);
      this.#inFlight = this.#batch = undefined;
      this.#responses.push(...responses);
      this.#requests.push(...requests);
      this.now();
    };
    this.#inFlight = os(ffi).async.lfind(offload.table, items, count, 8n, offload.compare).then(
      done,
      failed,
    );
  }
}
