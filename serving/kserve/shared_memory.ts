/**
 * System shared memory (KServe's `system_shared_memory` extension): regions a local client
 * registers by name — a POSIX shared memory key, an offset and a size — mapped into this process,
 * so that inputs are read where the client wrote them and outputs written where it reads them,
 * without crossing a socket. The same object holds the CUDA shared memory regions
 * (`cuda_shared_memory`, see cuda_shared_memory.ts), in one name space with the system ones.
 * Served by `serve()` and `serveGrpc()` where they are given a {@link SharedMemoryRegions} (pass
 * the same one to both to share its regions).
 *
 * @module
 */
import {
  type FfiRuntime,
  mapSharedMemory,
  SharedMemoryError,
  type SharedMemoryMapping,
  unmapSharedMemory,
} from "../../ffi/mod.ts";
import { describeValue } from "../../src/value_checks.ts";
import { TritonError } from "../../src/errors.ts";
import type { Server } from "../../src/server.ts";
import {
  CudaRegions,
  type CudaSharedMemoryRegionStatus,
  type DeviceBytes,
} from "./cuda_shared_memory.ts";
import { checkRegionPart } from "./region_part.ts";
import type { StateChange } from "../common/state_changes.ts";

/** A registered region as the status calls report it. */
export interface SharedMemoryRegionStatus {
  /** The name requests use. */
  readonly name: string;
  /** The POSIX shared memory key (`shm_open`'s name). */
  readonly key: string;
  /** Where the region starts in the shared memory object, in bytes. */
  readonly offset: number;
  /** The region's size in bytes. */
  readonly byteSize: number;
}

/** Part of a region held by a request: its bytes stay mapped until {@link release}. */
export interface SharedMemoryLease {
  /** The bytes leased (a view of the mapping: read and written in place); empty for a CUDA
   * region, whose bytes are in GPU memory ({@link device}). */
  readonly bytes: Uint8Array;
  /** Where the bytes leased are, for a CUDA region. */
  readonly device?: DeviceBytes;
  /** Gives the bytes back (idempotent); a region unregistered meanwhile is unmapped once no
   * lease holds it. */
  release(): void;
}

/** Keys Triton keeps for its Python backend's own regions. */
const RESERVED_KEY_PREFIX = "triton_python_backend_shm_region_";

interface Region {
  readonly status: SharedMemoryRegionStatus;
  readonly mapping: SharedMemoryMapping;
  /** The runtime adapter that mapped it (and unmaps it, the server stopped or not). */
  readonly ffi: FfiRuntime;
  leases: number;
  /** Unregistered while leased: unmapped when the last lease ends. */
  unregistered: boolean;
}

/** A whole number of bytes >= 0 that a double holds exactly. */
function byteCount(value: unknown, what: string): number {
  if (typeof value === "bigint" && value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER)) {
    return Number(value);
  }
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
  throw new TritonError(
    "INVALID_ARG",
    `${what} must be an unsigned integer, not ${describeValue(value)}`,
  );
}

/**
 * The shared memory regions of a server's front ends (Triton's shared memory manager), system and
 * CUDA, in one name space: registered, looked up by requests, unregistered. A region a request
 * still reads or writes is unmapped (a CUDA one closed) only once that request is done.
 * @example
 * ```ts
 * import { Server } from "tritonffi";
 * import { serve, SharedMemoryRegions } from "tritonffi/serve";
 *
 * await using server = await new Server({ modelRepository: "./models" }).start();
 * using regions = new SharedMemoryRegions(server);
 * await using http = await serve(server, { port: 0, sharedMemory: regions });
 * console.log(regions.status()); // [] until a client registers one
 * ```
 */
export class SharedMemoryRegions implements Disposable {
  readonly #server: Server;
  readonly #regions = new Map<string, Region>();
  readonly #cuda: CudaRegions;
  /** Who hears of each system region registered or unregistered (a service's workers). */
  readonly #watchers = new Set<(change: StateChange) => void>();

  /** Regions for the front ends of `server` (which maps them through its FFI). */
  constructor(server: Server) {
    this.#server = server;
    this.#cuda = new CudaRegions(server);
  }

  /**
   * Maps `byteSize` bytes at `offset` of the POSIX shared memory object `key` as region `name`.
   * @throws {TritonError} INVALID_ARG for an empty name, a bad key (only slashes, or Triton's
   *   reserved prefix), numbers that are no byte counts, a region past the object's end or a
   *   mapping refused; ALREADY_EXISTS for a name registered; INTERNAL for a key that cannot be
   *   opened.
   */
  register(name: string, key: string, offset: number | bigint, byteSize: number | bigint): void {
    if (name === "") {
      throw new TritonError(
        "INVALID_ARG",
        "'region name' is necessary to register system shared memory region",
      );
    }
    const stripped = key.replace(/^\/+/, "");
    if (stripped === "") {
      throw new TritonError(
        "INVALID_ARG",
        `cannot register shared memory region '${name}' - invalid shm key '${key}'`,
      );
    }
    if (stripped.startsWith(RESERVED_KEY_PREFIX)) {
      throw new TritonError(
        "INVALID_ARG",
        `cannot register shared memory region '${name}' with key '${key}' as the key contains ` +
          `the reserved prefix '${RESERVED_KEY_PREFIX}'`,
      );
    }
    const start = byteCount(offset, "'offset'");
    const size = byteCount(byteSize, "'byte_size'");
    if (this.#regions.has(name) || this.#cuda.has(name)) {
      throw new TritonError("ALREADY_EXISTS", `shared memory region '${name}' already in manager`);
    }
    const ffi = this.#server.native().lib.ffi;
    let mapping: SharedMemoryMapping;
    try {
      mapping = mapSharedMemory(ffi, key, start, size);
    } catch (e) {
      if (!(e instanceof SharedMemoryError)) throw e;
      if (e.reason === "open") {
        throw new TritonError("INTERNAL", `Unable to open shared memory region: '${key}'`);
      }
      throw new TritonError(
        "INVALID_ARG",
        `failed to register shared memory region '${name}': ` +
          (e.reason === "size" ? "invalid args" : "unable to process address space"),
      );
    }
    this.#regions.set(name, {
      status: { name, key, offset: start, byteSize: size },
      mapping,
      ffi,
      leases: 0,
      unregistered: false,
    });
    this.#tell({ op: "shm.register", args: [name, key, start, size] });
  }

  /** @internal Calls `watcher` after each system region registered (`shm.register` with
   * `[name, key, offset, byteSize]`) or unregistered (`shm.unregister`, `[name]`), until the
   * function returned is called. A service served by several threads mirrors them so. */
  watch(watcher: (change: StateChange) => void): () => void {
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  #tell(change: StateChange): void {
    for (const watcher of this.#watchers) watcher(change);
  }

  /**
   * The regions registered, or the one named.
   * @throws {TritonError} NOT_FOUND for a name not registered.
   */
  status(name = ""): SharedMemoryRegionStatus[] {
    if (name === "") return [...this.#regions.values()].map((r) => r.status);
    const region = this.#regions.get(name);
    if (region === undefined) {
      throw new TritonError(
        "NOT_FOUND",
        this.#cuda.has(name)
          ? `The region named '${name}' is registered as CUDA shared memory, not system shared ` +
            "memory"
          : `Unable to find system shared memory region: '${name}'`,
      );
    }
    return [region.status];
  }

  /** Whether CUDA regions can be registered: the server's CUDA runtime loads (it is loaded on
   * first ask, as the allocator would).
   * @throws {TritonError} UNAVAILABLE where the server is not running. */
  get cudaAvailable(): boolean {
    return this.#cuda.available;
  }

  /**
   * Opens the CUDA IPC handle `rawHandle` (a `cudaIpcMemHandle_t`, 64 bytes) of a GPU buffer on
   * device `deviceId` as region `name`, of `byteSize` bytes (`cudaIpcOpenMemHandle`, through the
   * CUDA runtime the server's allocator loads).
   * @throws {TritonError} INVALID_ARG for an empty name, a server with no CUDA runtime ("GPUs not
   *   supported", as a tritonserver built without GPU support answers), a handle that is not 64
   *   bytes, numbers that are no byte counts, a handle the runtime cannot open (as on a machine
   *   with no GPU), or a size past the buffer's end; ALREADY_EXISTS for a name registered (of
   *   either kind).
   */
  registerCuda(
    name: string,
    rawHandle: Uint8Array,
    deviceId: number | bigint,
    byteSize: number | bigint,
  ): void {
    this.#cuda.register(
      name,
      rawHandle,
      byteCount(deviceId, "'device_id'"),
      byteCount(byteSize, "'byte_size'"),
      this.#regions.has(name),
    );
  }

  /**
   * The CUDA regions registered, or the one named.
   * @throws {TritonError} NOT_FOUND for a name not registered, or registered as system memory.
   */
  cudaStatus(name = ""): CudaSharedMemoryRegionStatus[] {
    return this.#cuda.status(name, (n) => this.#regions.has(n));
  }

  /** Unregisters CUDA region `name`, or every CUDA region where `name` is "" (a name not
   * registered, or a system region, is no error). One leased is closed
   * (`cudaIpcCloseMemHandle`) when its requests are done.
   * @throws {TritonError} INTERNAL when the CUDA runtime fails to close one. */
  unregisterCuda(name = ""): void {
    this.#cuda.unregister(name);
  }

  /** Unregisters region `name`, or every region where `name` is "" (a name not registered is
   * no error). A region leased by a request is unmapped when the request is done. */
  unregister(name = ""): void {
    const names = name === "" ? [...this.#regions.keys()] : [name];
    for (const n of names) {
      const region = this.#regions.get(n);
      if (region === undefined || region.unregistered) continue;
      region.unregistered = true;
      if (region.leases === 0) this.#unmap(n, region);
      this.#tell({ op: "shm.unregister", args: [n] });
    }
  }

  /**
   * `byteSize` bytes at `offset` of region `name` (system or CUDA), held until the lease is
   * released.
   * @throws {TritonError} NOT_FOUND for a region not registered; INVALID_ARG for an offset past
   *   its end or bytes past its end.
   */
  lease(name: string, offset: number, byteSize: number): SharedMemoryLease {
    const region = this.#regions.get(name);
    if (region === undefined) {
      const cuda = this.#cuda.lease(name, offset, byteSize);
      if (cuda !== undefined) return cuda;
      throw new TritonError("NOT_FOUND", `Unable to find shared memory region: '${name}'`);
    }
    checkRegionPart(name, region.status.byteSize, offset, byteSize);
    region.leases++;
    let held = true;
    return {
      bytes: region.mapping.bytes.subarray(offset, offset + byteSize),
      release: () => {
        if (!held) return;
        held = false;
        region.leases--;
        if (region.leases === 0 && region.unregistered) this.#unmap(name, region);
      },
    };
  }

  /** Unregisters every region, system and CUDA (those leased once their requests are done).
   * @throws {TritonError} INTERNAL when the CUDA runtime fails to close a CUDA region. */
  close(): void {
    this.unregister("");
    this.#cuda.unregister("");
  }

  /** As {@link close}. */
  [Symbol.dispose](): void {
    this.close();
  }

  #unmap(name: string, region: Region): void {
    if (this.#regions.get(name) === region) this.#regions.delete(name);
    unmapSharedMemory(region.ffi, region.mapping);
  }
}

/** The `sharedMemory` option of the front ends, checked.
 * @throws {TritonError} INVALID_ARG for anything but a {@link SharedMemoryRegions}. */
export function sharedMemoryOption(value: unknown): SharedMemoryRegions | undefined {
  if (value === undefined || value instanceof SharedMemoryRegions) return value;
  throw new TritonError(
    "INVALID_ARG",
    `sharedMemory must be a SharedMemoryRegions, not ${describeValue(value)}`,
  );
}
