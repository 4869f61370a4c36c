/**
 * One inference request's use of shared memory, on both protocols: its inputs read in place from
 * their regions (held until Triton releases the request; a CUDA region's given to Triton as GPU
 * memory), its outputs written into theirs — a system region's by Triton's response allocator (the
 * server's placing allocator, given the parts of the regions as the request's output placement, as
 * tritonserver's front ends do), a CUDA region's with `cudaMemcpy` once the response arrived — and
 * the regions given back once nothing can touch them: Triton done with the request, and the caller
 * done with its responses (whose outputs view the regions).
 *
 * @module
 */
import { type DataTypeName, placedTooSmall } from "../../ffi/mod.ts";
import { TritonError } from "../../src/errors.ts";
import { Tensor } from "../../src/tensor.ts";
import { checkBinarySize, tensorFromBinary } from "../common/tensor_data.ts";
import { type Model, oneResponse } from "../../src/model.ts";
import { type InferRequest, submit } from "../../src/request.ts";
import type { RequestStream } from "../../src/request_stream.ts";
import type { InferResponse } from "../../src/response.ts";
import type { SharedMemoryRef } from "./inference.ts";
import type { SharedMemoryLease, SharedMemoryRegions } from "./shared_memory.ts";

/** The regions a request reads and writes. */
export class RequestSharedMemory {
  readonly #regions: SharedMemoryRegions | undefined;
  readonly #inputs: SharedMemoryLease[] = [];
  readonly #outputs = new Map<string, SharedMemoryLease>();
  /** The outputs that go to shared memory (kept after their leases end). */
  readonly #outputNames = new Set<string>();
  /** The outputs handed to Triton's allocator ({@link placedOutputs}). */
  readonly #placed = new Set<string>();
  /** Requests Triton may still be writing the outputs' regions for. */
  #writing = 0;
  /** The caller is done with the responses ({@link releaseOutputs}). */
  #outputsDone = false;

  /** @param regions the front end's regions; undefined where it serves none (a region named
   *   is then NOT_FOUND, as in a server with none registered). */
  constructor(regions: SharedMemoryRegions | undefined) {
    this.#regions = regions;
  }

  /** Whether the request uses shared memory at all. */
  get used(): boolean {
    return this.#inputs.length > 0 || this.#outputNames.size > 0;
  }

  #lease(ref: SharedMemoryRef): SharedMemoryLease {
    if (this.#regions === undefined) {
      throw new TritonError(
        "NOT_FOUND",
        `Unable to find shared memory region: '${ref.region}'`,
      );
    }
    return this.#regions.lease(ref.region, ref.offset, ref.byteSize);
  }

  /**
   * Input `what`'s tensor, of `dtype` and `shape`, in place in its region: a view of a system
   * region's bytes, or a CUDA region's GPU memory (held until {@link releaseInputs}).
   * @throws {TritonError} NOT_FOUND or INVALID_ARG as `SharedMemoryRegions.lease`; INVALID_ARG
   *   for a size that does not fit the shape.
   */
  inputTensor(
    what: string,
    dtype: DataTypeName,
    shape: readonly number[],
    ref: SharedMemoryRef,
  ): Tensor {
    const lease = this.#lease(ref);
    this.#inputs.push(lease);
    const sizeName = "shared_memory_byte_size";
    if (lease.device === undefined) {
      return tensorFromBinary(what, dtype, shape, lease.bytes, sizeName);
    }
    const { address, byteSize, deviceId } = lease.device;
    checkBinarySize(what, dtype, shape, byteSize, sizeName);
    return Tensor.onDevice(dtype, shape, address, byteSize, deviceId);
  }

  /** Output `name` goes into `ref` (checked against its region now).
   * @throws {TritonError} NOT_FOUND or INVALID_ARG as `SharedMemoryRegions.lease`. */
  output(name: string, ref: SharedMemoryRef): void {
    this.#outputs.get(name)?.release();
    this.#outputs.set(name, this.#lease(ref));
    this.#outputNames.add(name);
  }

  /** Whether output `name` goes to shared memory (and not into the response message). */
  isOutput(name: string): boolean {
    return this.#outputNames.has(name);
  }

  /** The outputs' parts of their system regions by name, for Triton's allocator to write them
   * in place (see {@link inferWithSharedMemory}); {@link writeOutputs} leaves these alone.
   * Outputs in CUDA regions are not among them: {@link writeOutputs} copies them in. */
  placedOutputs(): ReadonlyMap<string, Uint8Array> {
    const placed = new Map<string, Uint8Array>();
    for (const [name, lease] of this.#outputs) {
      if (lease.device !== undefined) continue;
      placed.set(name, lease.bytes);
      this.#placed.add(name);
    }
    return placed;
  }

  /** Holds the regions until `finished` (Triton done with a request reading and writing them)
   * as well: the inputs' are given back then, the outputs' once {@link releaseOutputs} was
   * called too. */
  holdUntil(finished: Promise<unknown>): void {
    this.#writing++;
    void finished.then(() => {
      this.#writing--;
      this.releaseInputs();
      this.#releaseOutputsIfDone();
    });
  }

  /**
   * Writes each output of `response` that goes to shared memory, and that Triton's allocator
   * did not already write in place, into its region.
   * @throws {TritonError} INTERNAL for an output larger than its region's part (Triton's
   *   message), before anything is written.
   */
  writeOutputs(response: InferResponse): void {
    if (this.#outputs.size === 0) return;
    const writes: [SharedMemoryLease, Uint8Array][] = [];
    for (const [name, tensor] of Object.entries(response.outputs)) {
      const lease = this.#outputs.get(name);
      if (lease === undefined || this.#placed.has(name)) continue;
      const bytes = (tensor.memoryType === "GPU" ? tensor.toHost() : tensor).toBytes();
      const room = lease.device?.byteSize ?? lease.bytes.byteLength;
      if (bytes.byteLength > room) {
        throw new TritonError("INTERNAL", placedTooSmall(name, room, bytes.byteLength));
      }
      writes.push([lease, bytes]);
    }
    for (const [lease, bytes] of writes) {
      if (lease.device) lease.device.write(bytes);
      else lease.bytes.set(bytes);
    }
  }

  /** Gives back the outputs' regions: the caller is done with the responses (disposed them);
   * where Triton may still write them, they are given back once it is done too. */
  releaseOutputs(): void {
    this.#outputsDone = true;
    this.#releaseOutputsIfDone();
  }

  #releaseOutputsIfDone(): void {
    if (!this.#outputsDone || this.#writing > 0) return;
    for (const lease of this.#outputs.values()) lease.release();
    this.#outputs.clear();
  }

  /** Gives back the inputs' regions (once Triton released the request, or never took it). */
  releaseInputs(): void {
    for (const lease of this.#inputs) lease.release();
    this.#inputs.length = 0;
  }

  /** Gives back everything. */
  release(): void {
    this.releaseOutputs();
    this.releaseInputs();
  }
}

/**
 * Runs `request` on `model` with its regions: outputs in shared memory are written in place by
 * Triton's allocator, and the regions held until Triton is done with the request (see
 * {@link RequestSharedMemory.holdUntil}). The caller disposes the responses, then calls
 * `shm.releaseOutputs()`; where this throws, `shm.release()`.
 * @throws {TritonError} as `model.infer()`.
 */
export function inferWithSharedMemory(
  model: Model,
  request: InferRequest,
  shm: RequestSharedMemory,
): AsyncGenerator<InferResponse> {
  if (!shm.used) return model.infer(request);
  const target = model.server.inferTarget(model.name, model.version);
  const stream = submit(target, request, shm.placedOutputs()) as RequestStream;
  shm.holdUntil(stream.finished);
  return stream;
}

/**
 * Runs `request`, which has one response, with its regions ({@link inferWithSharedMemory}). The
 * caller disposes the response, then calls `shm.releaseOutputs()`. Outputs in CUDA regions are
 * copied in before this resolves.
 * @throws {TritonError} as `model.inferOne()`; INTERNAL for an output larger than its region's
 *   part (the response's error, or for a CUDA region this one; tritonserver's message).
 */
export async function inferOneWithSharedMemory(
  model: Model,
  request: InferRequest,
  shm: RequestSharedMemory,
): Promise<InferResponse> {
  if (!shm.used) return model.inferOne(request);
  let stream: AsyncGenerator<InferResponse>;
  try {
    stream = inferWithSharedMemory(model, request, shm);
  } catch (e) {
    shm.release();
    throw e;
  }
  let response: InferResponse | undefined;
  try {
    response = await oneResponse(model.name, stream);
    shm.writeOutputs(response); // those in CUDA regions
    return response;
  } catch (e) {
    response?.dispose();
    shm.releaseOutputs();
    throw e;
  }
}
