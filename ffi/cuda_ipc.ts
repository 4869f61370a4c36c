/**
 * CUDA IPC through the CUDA runtime the allocator loaded: a client's GPU buffer opened by its
 * 64-byte `cudaIpcMemHandle_t` (`cudaSetDevice`, `cudaIpcOpenMemHandle`), the allocation's size
 * asked of the driver (`cuMemGetAddressRange_v2`), host bytes copied into it (`cudaMemcpy`), and
 * the opening closed (`cudaIpcCloseMemHandle`). What the KServe front ends' CUDA shared memory
 * extension stands on.
 *
 * @module
 */
import {
  CUDA_IPC_HANDLE_SIZE,
  CUDA_IPC_LAZY_ENABLE_PEER_ACCESS,
  cudaDriverSymbols,
  cudaIpcSymbols,
  CudaMemcpyKind,
  type CudaRuntime,
} from "./cuda.ts";
import { platform } from "./os.ts";
import type { FfiRuntime, Ptr, SyncFns } from "./types.ts";

/** An opened IPC handle: a device address valid in this process until {@link closeCudaIpc}. */
export interface CudaIpcMapping {
  /** The device address the handle opened at. */
  readonly address: number;
  /** The same, as a pointer. */
  readonly pointer: Ptr;
  /** The GPU it is on. */
  readonly deviceId: number;
}

/** Why a handle could not be opened: `"unsupported"` (no IPC binding for this architecture),
 * `"open"` (`cudaIpcOpenMemHandle` failed: not a handle, a freed buffer, no such device). */
export class CudaIpcError extends Error {
  override name = "CudaIpcError";
  readonly reason: "unsupported" | "open";
  constructor(reason: "unsupported" | "open", message: string) {
    super(message);
    this.reason = reason;
  }
}

type X86Ipc = SyncFns<typeof cudaIpcSymbols.x86_64>;
type ArmIpc = SyncFns<typeof cudaIpcSymbols.aarch64>;
type Driver = SyncFns<typeof cudaDriverSymbols>;

interface Bound {
  readonly ipc: { readonly arch: "x86_64"; readonly fns: X86Ipc } | {
    readonly arch: "aarch64";
    readonly fns: ArmIpc;
  } | string;
  driver?: Driver | string;
}

const bound = new WeakMap<CudaRuntime, Bound>();

function bind(cuda: CudaRuntime, ffi: FfiRuntime): Bound {
  let b = bound.get(cuda);
  if (b === undefined) {
    const { arch } = platform();
    let ipc: Bound["ipc"];
    try {
      ipc = arch === "x86_64"
        ? { arch, fns: ffi.open(cuda.path, cudaIpcSymbols.x86_64).sync }
        : arch === "aarch64"
        ? { arch, fns: ffi.open(cuda.path, cudaIpcSymbols.aarch64).sync }
        : `CUDA IPC is bound for x86-64 and aarch64, not ${arch}`;
    } catch (e) {
      ipc = `the CUDA runtime has no IPC functions: ${e instanceof Error ? e.message : e}`;
    }
    b = { ipc };
    bound.set(cuda, b);
  }
  return b;
}

function driver(cuda: CudaRuntime, ffi: FfiRuntime): Driver | string {
  const b = bind(cuda, ffi);
  if (b.driver === undefined) {
    const tried: string[] = [];
    for (const path of [cuda.path, "libcuda.so.1"]) {
      try {
        b.driver = ffi.open(path, cudaDriverSymbols).sync;
        break;
      } catch (e) {
        tried.push(`${path}: ${e instanceof Error ? e.message : e}`);
      }
    }
    b.driver ??= `no CUDA driver found; tried ${tried.join("; ")}`;
  }
  return b.driver;
}

/**
 * Opens the IPC `handle` (64 bytes) on device `deviceId`, as Triton does: `cudaSetDevice` (its
 * failure left to the open), then `cudaIpcOpenMemHandle` with lazy peer access.
 * @throws {CudaIpcError} "open" when the runtime refuses the handle, or `deviceId` is no `int`;
 *   "unsupported" where the architecture or the runtime has no IPC binding.
 */
export function openCudaIpc(
  cuda: CudaRuntime,
  ffi: FfiRuntime,
  handle: Uint8Array,
  deviceId: number,
): CudaIpcMapping {
  if (handle.byteLength !== CUDA_IPC_HANDLE_SIZE) {
    throw new CudaIpcError("open", `a cudaIpcMemHandle_t is ${CUDA_IPC_HANDLE_SIZE} bytes`);
  }
  // cudaSetDevice takes an int: a larger id names no device (and an FFI refuses it as an int).
  if (!Number.isSafeInteger(deviceId) || deviceId < 0 || deviceId > 0x7fffffff) {
    throw new CudaIpcError("open", `device ${deviceId} is no CUDA device (an int)`);
  }
  const { ipc } = bind(cuda, ffi);
  if (typeof ipc === "string") throw new CudaIpcError("unsupported", ipc);
  cuda.api.cudaSetDevice(deviceId);
  const out = new BigUint64Array(1);
  const copy = new Uint8Array(CUDA_IPC_HANDLE_SIZE);
  copy.set(handle);
  let rc: number;
  if (ipc.arch === "x86_64") {
    const w = new BigUint64Array(copy.buffer);
    rc = ipc.fns.cudaIpcOpenMemHandle(
      out,
      CUDA_IPC_LAZY_ENABLE_PEER_ACCESS,
      0n,
      0n,
      0n,
      0n,
      w[0],
      w[1],
      w[2],
      w[3],
      w[4],
      w[5],
      w[6],
      w[7],
    );
  } else {
    rc = ipc.fns.cudaIpcOpenMemHandle(out, copy, CUDA_IPC_LAZY_ENABLE_PEER_ACCESS);
  }
  if (rc !== 0) {
    throw new CudaIpcError(
      "open",
      `failed to open CUDA IPC handle: ${cuda.api.cudaGetErrorString(rc)}`,
    );
  }
  return { address: Number(out[0]), pointer: ffi.fromAddress(out[0]), deviceId };
}

/**
 * The bytes of the allocation from `mapping`'s address to its end, asked of the driver
 * (`cuMemGetAddressRange_v2`); a sentence saying why when it cannot tell.
 */
export function cudaIpcSize(
  cuda: CudaRuntime,
  ffi: FfiRuntime,
  mapping: CudaIpcMapping,
): number | string {
  const d = driver(cuda, ffi);
  if (typeof d === "string") return d;
  const base = new BigUint64Array(1);
  const size = new BigUint64Array(1);
  const rc = d.cuMemGetAddressRange_v2(base, size, BigInt(mapping.address));
  if (rc !== 0) return `Failed to get CUDA address range: CUresult ${rc}`;
  return Number(base[0] + size[0]) - mapping.address;
}

/** Closes `mapping` (`cudaIpcCloseMemHandle`); the runtime's error text when it fails. */
export function closeCudaIpc(
  cuda: CudaRuntime,
  ffi: FfiRuntime,
  mapping: CudaIpcMapping,
): string | undefined {
  const { ipc } = bind(cuda, ffi);
  if (typeof ipc === "string") return ipc;
  const rc = ipc.fns.cudaIpcCloseMemHandle(mapping.pointer);
  return rc === 0
    ? undefined
    : `failed to close CUDA IPC handle: ${cuda.api.cudaGetErrorString(rc)}`;
}

/**
 * Copies `bytes` to device address `address` on device `deviceId` (`cudaSetDevice`,
 * `cudaMemcpy` host to device); the runtime's error text when it fails.
 */
export function copyToDevice(
  cuda: CudaRuntime,
  ffi: FfiRuntime,
  address: number,
  bytes: Uint8Array,
  deviceId: number,
): string | undefined {
  if (bytes.byteLength === 0) return undefined;
  let rc = cuda.api.cudaSetDevice(deviceId);
  if (rc === 0) {
    rc = cuda.api.cudaMemcpy(
      ffi.fromAddress(address),
      ffi.addressOf(bytes),
      bytes.byteLength,
      CudaMemcpyKind.HostToDevice,
    );
  }
  return rc === 0 ? undefined : `cudaMemcpy to device failed: ${cuda.api.cudaGetErrorString(rc)}`;
}
