/**
 * `NativeResponse`: one `TRITONSERVER_InferenceResponse` and the JS objects that depend on it.
 *
 * Triton's response owns the output buffers our allocator gave it (deleting it frees them) and
 * pins its model (a live response makes `TRITONSERVER_ServerStop` wait). The JS objects that
 * read that memory are its holders: the `InferResponse`, each `ArrayBuffer` viewing an output
 * buffer in place, and each GPU output `Tensor` (it carries a device address). The native
 * response is deleted when the first of these happens:
 *
 * - {@link release}: the user disposed the response or the server stops (it releases every
 *   response it owns first): at once; the stream dropped one it never handed out, or settled one
 *   the reader moved past: batched on a later macrotask;
 * - every holder was garbage-collected (a `FinalizationRegistry` of the owning server).
 *
 * On release the output views still alive are detached (`ArrayBuffer.prototype.transfer(0)`:
 * their length becomes 0), so no TypedArray kept by the user can read freed memory.
 *
 * @module
 */
import type { OutputFields, Ptr, TritonLibrary } from "../ffi/mod.ts";
import { TritonError } from "./errors.ts";
import { Tensor } from "./tensor.ts";

/** What a native response reports to the server that owns it. */
export interface ResponseOwner {
  readonly lib: TritonLibrary;
  /** Registers a holder: when it is collected, `response` loses one holder. */
  hold(holder: object, response: NativeResponse): void;
  /** Called once, when `response` was deleted: it is no longer owned, its holders are nothing to
   * wait for. */
  released(response: NativeResponse): void;
  /** `bytes` more (or, negative, fewer) of output buffers are viewed in place. */
  viewing(bytes: number): void;
  /** Whether the owner released everything it owned (its server stopped). */
  readonly closed: boolean;
}

/** See the module documentation. */
export class NativeResponse {
  readonly owner: ResponseOwner;
  #pointer: Ptr | undefined;
  #holders = 0;
  #views: WeakRef<ArrayBuffer>[] | undefined;
  #viewedBytes = 0;
  /** Each output's index in the response, by name (an object's keys would put names that look
   * like integers first). */
  #indexes: Map<string, number> | undefined;

  constructor(owner: ResponseOwner, pointer: Ptr) {
    this.owner = owner;
    this.#pointer = pointer;
  }

  /** The native response; `undefined` once deleted. */
  get pointer(): Ptr | undefined {
    return this.#pointer;
  }

  /** Whether it was deleted: what depended on it is unreadable (also the lease of its tensors). */
  get disposed(): boolean {
    return this.#pointer === undefined;
  }

  /** Whether an output buffer is viewed in place (by a view that may still be alive). */
  get viewing(): boolean {
    return this.#views !== undefined;
  }

  /** Makes `holder` keep the native response alive until it is collected. */
  hold(holder: object): void {
    this.#holders++;
    this.owner.hold(holder, this);
  }

  /** Like {@link hold}, for a view of an output buffer, which {@link release} detaches. */
  holdView(buffer: ArrayBuffer): void {
    (this.#views ??= []).push(new WeakRef(buffer));
    this.#viewedBytes += buffer.byteLength;
    this.owner.viewing(buffer.byteLength);
    this.hold(buffer);
  }

  /** A holder was collected (the owner's registry calls this). */
  collected(): void {
    if (--this.#holders === 0) this.release();
  }

  /**
   * Deletes the native response (`TRITONSERVER_InferenceResponseDelete`, which returns its
   * buffers to the allocator), after detaching the views still alive: on a later macrotask,
   * batched with others and off the JS thread when they are many (the binding's
   * `nativeDeletes`), or here with `now`. Idempotent.
   */
  release(now = false): void {
    const pointer = this.#pointer;
    if (pointer === undefined) return;
    this.#pointer = undefined;
    const views = this.#views;
    if (views) {
      this.#views = undefined;
      for (const ref of views) detach(ref.deref());
      this.owner.viewing(-this.#viewedBytes);
    }
    const { lib } = this.owner;
    if (now) lib.api.TRITONSERVER_InferenceResponseDelete(pointer);
    else lib.binding.nativeDeletes.response(pointer);
    this.owner.released(this);
  }

  /**
   * The tensors of `outputs`, by name: copies stand alone; a view of Triton's buffer, and a GPU
   * output (it carries a device address), hold this response.
   * @throws {TritonError} INTERNAL naming the output whose size does not fit its shape.
   */
  tensors(outputs: readonly OutputFields[]): Record<string, Tensor> {
    const tensors: Record<string, Tensor> = {};
    const indexes = new Map<string, number>();
    outputs.forEach((o, i) => {
      tensors[o.name] = this.#tensor(o);
      indexes.set(o.name, i);
    });
    this.#indexes = indexes;
    return tensors;
  }

  /** The index of output `name` in Triton's response, once {@link tensors} read its outputs. */
  outputIndex(name: string): number | undefined {
    return this.#indexes?.get(name);
  }

  #tensor(o: OutputFields): Tensor {
    const { name, dtype, shape, memoryType, memoryTypeId, bytes } = o;
    if (bytes === undefined) {
      const binding = this.owner.lib.binding;
      const toHost = () => binding.copyToHost(o.base, o.byteSize, memoryTypeId);
      const device = { pointer: binding.lib.ffi.address(o.base), byteSize: o.byteSize, toHost };
      const tensor = Tensor.view(dtype, shape, [], this, memoryType, memoryTypeId, device);
      this.hold(tensor); // the buffer lives while the tensor does
      return tensor;
    }
    try {
      const data = Tensor.elementsOf(dtype, shape, bytes);
      if (!o.inPlace) return Tensor.view(dtype, shape, data, undefined, memoryType, memoryTypeId);
      // A view in place (not a copy: BYTES, or an unaligned buffer) keeps its buffer alive.
      if (!Array.isArray(data) && data.buffer === bytes.buffer) {
        this.holdView(bytes.buffer as ArrayBuffer);
      }
      return Tensor.view(dtype, shape, data, this, memoryType, memoryTypeId);
    } catch (e) {
      if (e instanceof TritonError) throw new TritonError(e.code, `output '${name}': ${e.message}`);
      throw e;
    }
  }
}

/** Detaches `buffer` where it is still attached. */
function detach(buffer: ArrayBuffer | undefined): void {
  if (buffer === undefined || buffer.detached) return;
  try {
    buffer.transfer(0);
  } catch {
    // Not detachable (cannot happen for the views the runtimes make): nothing safer to do.
  }
}
