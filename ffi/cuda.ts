/**
 * The CUDA runtime (`libcudart`), loaded lazily through FFI only when pinned or GPU memory is
 * asked for, or a CUDA shared memory region registered (its IPC functions, `cudaIpcSymbols`, bound
 * then, by `cuda_ipc.ts`). Search order: `$TRITONFFI_CUDART` (alone when set; `none` disables CUDA),
 * `$CUDA_HOME/lib64/libcudart.so`, then the usual sonames through the system loader.
 *
 * @module
 */
import { env } from "./runtime.ts";
import type { SymbolDef } from "./symbols.ts";
import type { FfiRuntime, Ptr, SyncFns } from "./types.ts";

/** The CUDA runtime functions the binding uses (all return a `cudaError_t`, 0 = success). */
export const cudaSymbols = {
  cudaMalloc: {
    parameters: [
      "buf", // void** devPtr
      "usize", // size_t size
    ],
    result: "i32", // cudaError_t
    since: 0,
  },
  cudaFree: {
    parameters: [
      "ptr", // void* devPtr
    ],
    result: "i32", // cudaError_t
    since: 0,
  },
  cudaHostAlloc: {
    parameters: [
      "buf", // void** pHost
      "usize", // size_t size
      "u32", // unsigned int flags
    ],
    result: "i32", // cudaError_t
    since: 0,
  },
  cudaFreeHost: {
    parameters: [
      "ptr", // void* ptr
    ],
    result: "i32", // cudaError_t
    since: 0,
  },
  cudaMemcpy: {
    parameters: [
      "ptr", // void* dst
      "ptr", // const void* src
      "usize", // size_t count
      "i32", // cudaMemcpyKind kind
    ],
    result: "i32", // cudaError_t
    since: 0,
  },
  cudaSetDevice: {
    parameters: [
      "i32", // int device
    ],
    result: "i32", // cudaError_t
    since: 0,
  },
  cudaGetDeviceCount: {
    parameters: [
      "buf", // int* count
    ],
    result: "i32", // cudaError_t
    since: 0,
  },
  cudaGetErrorString: {
    parameters: [
      "i32", // cudaError_t error
    ],
    result: "cstr", // const char*
    since: 0,
  },
} as const satisfies Record<string, SymbolDef>;

/**
 * `cudaIpcOpenMemHandle(void** devPtr, cudaIpcMemHandle_t handle, unsigned int flags)` and
 * `cudaIpcCloseMemHandle(void* devPtr)`, bound when CUDA shared memory is first registered. The
 * handle is a 64-byte struct passed by value, which no FFI of the three runtimes passes as such;
 * each architecture's calling convention says where it goes, and the declaration puts it there:
 * - x86-64 (System V): a struct larger than 16 bytes goes in memory, on the stack where the
 *   seventh and later integer arguments go, and takes no register, so `flags` is in the second
 *   one. Declared as devPtr, flags, four unused register words, then the handle's eight 64-bit
 *   words, which land on the stack in order: the struct's bytes, where the callee reads them.
 * - aarch64 (AAPCS64): a struct larger than 16 bytes is passed as the address of a copy the
 *   caller made, in the next register. Declared as devPtr, the copy's address, flags.
 */
export const cudaIpcSymbols = {
  x86_64: {
    cudaIpcOpenMemHandle: {
      parameters: [
        "buf", // void** devPtr                       (rdi)
        "u32", // unsigned int flags                  (rsi: the struct takes no register)
        "u64", // unused                              (rdx)
        "u64", // unused                              (rcx)
        "u64", // unused                              (r8)
        "u64", // unused                              (r9)
        "u64", // cudaIpcMemHandle_t handle bytes 0-7   (stack, as the struct is)
        "u64", // cudaIpcMemHandle_t handle bytes 8-15
        "u64", // cudaIpcMemHandle_t handle bytes 16-23
        "u64", // cudaIpcMemHandle_t handle bytes 24-31
        "u64", // cudaIpcMemHandle_t handle bytes 32-39
        "u64", // cudaIpcMemHandle_t handle bytes 40-47
        "u64", // cudaIpcMemHandle_t handle bytes 48-55
        "u64", // cudaIpcMemHandle_t handle bytes 56-63
      ],
      result: "i32", // cudaError_t
      since: 0,
    },
    cudaIpcCloseMemHandle: {
      parameters: [
        "ptr", // void* devPtr
      ],
      result: "i32", // cudaError_t
      since: 0,
    },
  },
  aarch64: {
    cudaIpcOpenMemHandle: {
      parameters: [
        "buf", // void** devPtr
        "buf", // cudaIpcMemHandle_t handle (the address of the caller's copy)
        "u32", // unsigned int flags
      ],
      result: "i32", // cudaError_t
      since: 0,
    },
    cudaIpcCloseMemHandle: {
      parameters: [
        "ptr", // void* devPtr
      ],
      result: "i32", // cudaError_t
      since: 0,
    },
  },
} as const satisfies Record<string, Record<string, SymbolDef>>;

/** `cudaIpcMemLazyEnablePeerAccess`: what Triton opens handles with. */
export const CUDA_IPC_LAZY_ENABLE_PEER_ACCESS = 1;

/** Size of a `cudaIpcMemHandle_t` in bytes. */
export const CUDA_IPC_HANDLE_SIZE = 64;

/**
 * The CUDA driver function that says which allocation holds an address (the runtime API has
 * none). Looked up in the CUDA runtime's library first (the tests' fake runtime exports it; the
 * real one does not), then in the driver, `libcuda.so.1`.
 */
export const cudaDriverSymbols = {
  cuMemGetAddressRange_v2: {
    parameters: [
      "buf", // CUdeviceptr* pbase
      "buf", // size_t* psize
      "u64", // CUdeviceptr dptr
    ],
    result: "i32", // CUresult
    since: 0,
  },
} as const satisfies Record<string, SymbolDef>;

/** `cudaMemcpyKind` values. */
export const CudaMemcpyKind = {
  HostToHost: 0,
  HostToDevice: 1,
  DeviceToHost: 2,
  DeviceToDevice: 3,
  Default: 4,
} as const;

/** A loaded CUDA runtime. */
export interface CudaRuntime {
  /** Where it was loaded from. */
  readonly path: string;
  /** Its functions. */
  readonly api: SyncFns<typeof cudaSymbols>;
  /** Addresses of its functions, for native code (the Bun allocator). */
  readonly addresses: Readonly<Record<keyof typeof cudaSymbols, Ptr>>;
  /** Number of CUDA devices (0 when the runtime finds none). */
  readonly deviceCount: number;
}

function candidates(): string[] {
  const list: string[] = [];
  const explicit = env("TRITONFFI_CUDART");
  if (explicit === "none") return list;
  if (explicit) return [explicit];
  const home = env("CUDA_HOME");
  if (home) list.push(`${home}/lib64/libcudart.so`);
  list.push(
    "libcudart.so",
    "libcudart.so.13",
    "libcudart.so.12",
    "libcudart.so.11.0",
    "/usr/local/cuda/lib64/libcudart.so",
  );
  return list;
}

/**
 * Loads the CUDA runtime; when none can be loaded, a sentence saying what was tried. The
 * library's callback table calls it once and keeps the result.
 * @param lookup resolves a symbol's address in a loaded library (libc `dlsym` over `dlopen`).
 */
export function loadCuda(
  ffi: FfiRuntime,
  lookup: (path: string, symbol: string) => Ptr,
): CudaRuntime | string {
  const tried: string[] = [];
  for (const path of candidates()) {
    try {
      const lib = ffi.open(path, cudaSymbols);
      const count = new Int32Array(1);
      const rc = lib.sync.cudaGetDeviceCount(count);
      const addresses = {} as Record<keyof typeof cudaSymbols, Ptr>;
      for (const name of Object.keys(cudaSymbols) as (keyof typeof cudaSymbols)[]) {
        addresses[name] = lookup(path, name);
      }
      return { path, api: lib.sync, addresses, deviceCount: rc === 0 ? count[0] : 0 };
    } catch (e) {
      tried.push(`${path}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return tried.length
    ? `no CUDA runtime found; tried ${tried.join("; ")}`
    : "CUDA is disabled (TRITONFFI_CUDART=none)";
}
