/**
 * CUDA shared memory (KServe's `cuda_shared_memory` extension): GPU buffers a local client
 * registers by name — the 64-byte `cudaIpcMemHandle_t` of a `cudaMalloc`'d buffer, its device and
 * size — opened in this process through the CUDA runtime (`cudaIpcOpenMemHandle`), so that inputs
 * are given to Triton in place as GPU memory and outputs copied into the buffer the client reads.
 * Held by {@link SharedMemoryRegions}, which keeps one name space for both kinds, as Triton's
 * shared memory manager does.
 *
 * @module
 */
import {
  closeCudaIpc,
  copyToDevice,
  CUDA_IPC_HANDLE_SIZE,
  CudaIpcError,
  type CudaIpcMapping,
  cudaIpcSize,
  type CudaRuntime,
  type FfiRuntime,
  openCudaIpc,
} from "../../ffi/mod.ts";
import { TritonError } from "../../src/errors.ts";
import type { Server } from "../../src/server.ts";
import { checkRegionPart } from "./region_part.ts";
import type { SharedMemoryLease } from "./shared_memory.ts";

/** A registered CUDA region as the status calls report it. */
export interface CudaSharedMemoryRegionStatus {
  /** The name requests use. */
  readonly name: string;
  /** The GPU the buffer is on. */
  readonly deviceId: number;
  /** The region's size in bytes. */
  readonly byteSize: number;
}

/** A request's part of a CUDA region: where it lies in GPU memory. */
export interface DeviceBytes {
  /** Its device address. */
  readonly address: number;
  /** Its size in bytes. */
  readonly byteSize: number;
  /** The GPU it is on. */
  readonly deviceId: number;
  /**
   * Copies `bytes` (at most {@link byteSize}) to the part's start (`cudaMemcpy` host to device).
   * @throws {TritonError} INTERNAL when the copy fails.
   */
  write(bytes: Uint8Array): void;
}

/** What a server with no CUDA runtime answers a CUDA registration (as a tritonserver built
 * without GPU support does).
 * @throws {TritonError} INVALID_ARG always. */
export function gpusNotSupported(name: string): never {
  throw new TritonError(
    "INVALID_ARG",
    `failed to register CUDA shared memory region: '${name}', GPUs not supported`,
  );
}

/** A CUDA registration without a region name.
 * @throws {TritonError} INVALID_ARG always. */
export function cudaRegionNameNeeded(): never {
  throw new TritonError(
    "INVALID_ARG",
    "'region name' is necessary to register cuda shared memory region",
  );
}

interface CudaRegion {
  readonly status: CudaSharedMemoryRegionStatus;
  readonly mapping: CudaIpcMapping;
  readonly cuda: CudaRuntime;
  readonly ffi: FfiRuntime;
  leases: number;
  unregistered: boolean;
}

/** The CUDA half of {@link SharedMemoryRegions}: its regions, opened and closed. */
export class CudaRegions {
  readonly #server: Server;
  readonly #regions = new Map<string, CudaRegion>();

  constructor(server: Server) {
    this.#server = server;
  }

  /** Whether a CUDA runtime can be loaded (loading it on first call).
   * @throws {TritonError} UNAVAILABLE where the server is not running. */
  get available(): boolean {
    return this.#server.native().lib.binding.callbacks.cuda() !== undefined;
  }

  /** Whether `name` is a CUDA region. */
  has(name: string): boolean {
    return this.#regions.has(name);
  }

  /**
   * Opens `rawHandle` on device `deviceId` as region `name`, of `byteSize` bytes.
   * @param taken whether `name` is registered as a system region.
   * @throws {TritonError} INVALID_ARG for an empty name, a server with no CUDA runtime ("GPUs not
   *   supported"), a handle that is not 64 bytes, one the runtime cannot open, or a size past
   *   the buffer's end; ALREADY_EXISTS for a name registered.
   */
  register(
    name: string,
    rawHandle: Uint8Array,
    deviceId: number,
    byteSize: number,
    taken: boolean,
  ): void {
    if (name === "") cudaRegionNameNeeded();
    const ffi = this.#server.native().lib.ffi;
    const cuda = this.#server.native().lib.binding.callbacks.cuda();
    if (cuda === undefined) gpusNotSupported(name);
    if (rawHandle.byteLength !== CUDA_IPC_HANDLE_SIZE) {
      throw new TritonError(
        "INVALID_ARG",
        "'raw_handle' must be a valid base64 encoded cudaIpcMemHandle_t",
      );
    }
    if (taken || this.#regions.has(name)) {
      throw new TritonError("ALREADY_EXISTS", `shared memory region '${name}' already in manager`);
    }
    let mapping: CudaIpcMapping;
    try {
      mapping = openCudaIpc(cuda, ffi, rawHandle, deviceId);
    } catch (e) {
      if (!(e instanceof CudaIpcError)) throw e;
      throw new TritonError(
        "INVALID_ARG",
        "failed to register shared memory region: invalid args",
      );
    }
    // Within the buffer: a part past its end would be read or written past the allocation.
    const size = cudaIpcSize(cuda, ffi, mapping);
    if (typeof size === "string" || byteSize > size) {
      closeCudaIpc(cuda, ffi, mapping);
      throw new TritonError(
        "INVALID_ARG",
        `failed to register shared memory region '${name}': invalid args`,
      );
    }
    this.#regions.set(name, {
      status: { name, deviceId, byteSize },
      mapping,
      cuda,
      ffi,
      leases: 0,
      unregistered: false,
    });
  }

  /**
   * The CUDA regions registered, or the one named.
   * @param systemHas whether a name not registered here is a system region.
   * @throws {TritonError} NOT_FOUND for a name not registered, or registered as system memory.
   */
  status(name: string, systemHas: (name: string) => boolean): CudaSharedMemoryRegionStatus[] {
    if (name === "") return [...this.#regions.values()].map((r) => r.status);
    const region = this.#regions.get(name);
    if (region !== undefined) return [region.status];
    throw new TritonError(
      "NOT_FOUND",
      systemHas(name)
        ? `The region named '${name}' is registered as system shared memory, not CUDA shared ` +
          "memory"
        : `Unable to find cuda shared memory region: '${name}'`,
    );
  }

  /** Unregisters CUDA region `name`, or every one where `name` is "" (a name not registered,
   * or of the other kind, is no error); one leased is closed when its requests are done.
   * @throws {TritonError} INTERNAL when `cudaIpcCloseMemHandle` fails (the region is forgotten). */
  unregister(name: string): void {
    const names = name === "" ? [...this.#regions.keys()] : [name];
    const failed: string[] = [];
    for (const n of names) {
      const region = this.#regions.get(n);
      if (region === undefined) continue;
      region.unregistered = true;
      if (region.leases === 0) {
        const error = this.#close(n, region);
        if (error !== undefined) failed.push(error);
      }
    }
    if (failed.length > 0) throw new TritonError("INTERNAL", failed.join("; "));
  }

  /**
   * `byteSize` bytes at `offset` of CUDA region `name`, held until released; undefined where
   * `name` is no CUDA region.
   * @throws {TritonError} INVALID_ARG for a part past the region's end.
   */
  lease(name: string, offset: number, byteSize: number): SharedMemoryLease | undefined {
    const region = this.#regions.get(name);
    if (region === undefined) return undefined;
    checkRegionPart(name, region.status.byteSize, offset, byteSize);
    const { cuda, ffi, mapping } = region;
    const device: DeviceBytes = {
      address: mapping.address + offset,
      byteSize,
      deviceId: mapping.deviceId,
      write: (bytes) => {
        if (!held) throw new TritonError("INTERNAL", `shared memory region '${name}' released`);
        const n = Math.min(bytes.byteLength, byteSize);
        const error = copyToDevice(
          cuda,
          ffi,
          device.address,
          bytes.subarray(0, n),
          mapping.deviceId,
        );
        if (error !== undefined) throw new TritonError("INTERNAL", error);
      },
    };
    region.leases++;
    let held = true;
    return {
      bytes: new Uint8Array(0),
      device,
      release: () => {
        if (!held) return;
        held = false;
        region.leases--;
        if (region.leases === 0 && region.unregistered) this.#close(name, region);
      },
    };
  }

  #close(name: string, region: CudaRegion): string | undefined {
    if (this.#regions.get(name) === region) this.#regions.delete(name);
    return closeCudaIpc(region.cuda, region.ffi, region.mapping);
  }
}
