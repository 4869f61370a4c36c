/**
 * One inference request's use of shared memory, on both protocols: its inputs read in place from
 * their regions (held until Triton releases the request; a CUDA region's given to Triton as GPU
 * memory), its outputs written into theirs while the response is held (a CUDA region's with
 * `cudaMemcpy`), and the regions given back after.
 *
 * @module
 */
import type { DataTypeName } from "../../ffi/mod.ts";
import { TritonError } from "../errors.ts";
import { Tensor } from "../tensor.ts";
import { checkBinarySize, tensorFromBinary } from "./tensor_data.ts";
import { type Model, oneResponse } from "../model.ts";
import type { InferRequest } from "../request.ts";
import type { RequestStream } from "../request_stream.ts";
import type { InferResponse } from "../response.ts";
import type { SharedMemoryRef } from "./inference.ts";
import type { SharedMemoryLease, SharedMemoryRegions } from "./shared_memory.ts";

/** The regions a request reads and writes. */
export class RequestSharedMemory {
  readonly #regions: SharedMemoryRegions | undefined;
  readonly #inputs: SharedMemoryLease[] = [];
  readonly #outputs = new Map<string, SharedMemoryLease>();
  /** The outputs that go to shared memory (kept after their leases end). */
  readonly #outputNames = new Set<string>();

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

  /**
   * Writes each output of `response` that goes to shared memory into its region.
   * @throws {TritonError} INTERNAL for an output larger than its region's part (Triton's
   *   message), before anything is written.
   */
  writeOutputs(response: InferResponse): void {
    if (this.#outputs.size === 0) return;
    const writes: [SharedMemoryLease, Uint8Array][] = [];
    for (const [name, tensor] of Object.entries(response.outputs)) {
      const lease = this.#outputs.get(name);
      if (lease === undefined) continue;
      const bytes = (tensor.memoryType === "GPU" ? tensor.toHost() : tensor).toBytes();
      const room = lease.device?.byteSize ?? lease.bytes.byteLength;
      if (bytes.byteLength > room) {
        throw new TritonError(
          "INTERNAL",
          `shared memory size specified with the request for output '${name}' ` +
            `(${room} bytes) should be at least ${bytes.byteLength} bytes to ` +
            "hold the results",
        );
      }
      writes.push([lease, bytes]);
    }
    for (const [lease, bytes] of writes) {
      if (lease.device) lease.device.write(bytes);
      else lease.bytes.set(bytes);
    }
  }

  /** Gives back the outputs' regions (once the responses are written). */
  releaseOutputs(): void {
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
 * Runs `request`, which has one response, keeping the regions it reads until Triton releases it;
 * the outputs in shared memory are written before this resolves. The caller disposes the
 * response.
 * @throws {TritonError} as `model.inferOne()`; INTERNAL for an output larger than its region.
 */
export async function inferOneSharing(
  model: Model,
  request: InferRequest,
  shm: RequestSharedMemory,
): Promise<InferResponse> {
  if (!shm.used) return model.inferOne(request);
  let stream: AsyncGenerator<InferResponse>;
  try {
    stream = model.infer(request);
  } catch (e) {
    shm.release();
    throw e;
  }
  // The inputs are read by Triton until it releases the request.
  (stream as RequestStream).finished.then(() => shm.releaseInputs());
  try {
    const response = await oneResponse(model.name, stream);
    try {
      shm.writeOutputs(response);
    } catch (e) {
      response.dispose();
      throw e;
    }
    return response;
  } finally {
    shm.releaseOutputs();
  }
}
