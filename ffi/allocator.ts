/**
 * The response allocator's functions: where Triton's output buffers come from.
 *
 * Each request passes a memory *policy* as the allocator's `userp` (an integer, see
 * {@link encodePolicy}): the memory type the user asked for (CPU, CPU_PINNED, GPU, or AUTO =
 * whatever Triton requests), the GPU id, and whether falling back to host memory is allowed.
 * Host memory comes from libc `malloc`/`free`; pinned and device memory from `libcudart`
 * (`cudaHostAlloc`/`cudaFreeHost`, `cudaMalloc`/`cudaFree`) once it has been loaded.
 *
 * The buffer's actual memory type and id travel in `buffer_userp` (`type + 1 | id << 8`), so
 * release frees with the matching function and the buffer-attributes function can report them.
 *
 * The same policy is implemented twice: in JS (Deno and Node, whose callbacks return values to
 * Triton's threads) and in C compiled at run time by Bun's `cc()` ({@link ALLOCATOR_C_SOURCE}).
 *
 * @module
 */
import type { CudaRuntime } from "./cuda.ts";
import { ErrorCode, MemoryType } from "./enums.ts";
import type { TritonLibrary } from "./loader.ts";
import { callbacks } from "./symbols.ts";
import type { Ptr } from "./types.ts";

/** The memory a request asks its outputs to land in. */
export const PolicyKind = { CPU: 0, CPU_PINNED: 1, GPU: 2, AUTO: 3 } as const;

/** Packs a policy into the integer passed as the allocator's `userp`. */
export function encodePolicy(kind: number, deviceId: number, fallback: boolean): number {
  return kind | (fallback ? 0x100 : 0) | (deviceId << 16);
}

/** Unpacks {@link encodePolicy}. */
export function decodePolicy(userp: number): { kind: number; deviceId: number; fallback: boolean } {
  return { kind: userp & 0xff, deviceId: (userp >>> 16) & 0xffff, fallback: (userp & 0x100) !== 0 };
}

/** The function pointers to hand to `TRITONSERVER_ResponseAllocatorNew` and its setters. */
export interface AllocatorFunctions {
  readonly alloc: Ptr;
  readonly release: Ptr;
  readonly query: Ptr;
  readonly bufferAttributes: Ptr;
  /** Makes pinned and device memory available once `libcudart` is loaded. */
  useCuda(cuda: CudaRuntime): void;
}

/** The decision both implementations make for one buffer. */
function place(
  policy: { kind: number; deviceId: number; fallback: boolean },
  requestedType: number,
  requestedId: number,
  cudaLoaded: boolean,
): { type: number; id: number; orFallback: boolean } {
  const auto = policy.kind === PolicyKind.AUTO;
  const type = auto ? requestedType : policy.kind;
  const id = type === MemoryType.GPU ? (auto ? requestedId : policy.deviceId) : 0;
  const orFallback = auto || policy.fallback;
  if (type !== MemoryType.CPU && !cudaLoaded) {
    return orFallback ? { type: MemoryType.CPU, id: 0, orFallback } : { type, id, orFallback };
  }
  return { type, id, orFallback };
}

/** The allocator implemented in JS, for runtimes whose callbacks return to Triton's threads. */
export function jsAllocator(lib: TritonLibrary): AllocatorFunctions {
  const { ffi, api, libc } = lib;
  let cuda: CudaRuntime | undefined;
  const word = new BigUint64Array(1);
  const word32 = new Uint32Array(1);
  const write64 = (dst: Ptr, value: bigint) => {
    word[0] = value;
    libc.memcpy(dst, word, 8);
  };
  const write32 = (dst: Ptr, value: number) => {
    word32[0] = value;
    libc.memcpy(dst, word32, 4);
  };
  const cudaError = (what: string, rc: number) =>
    `${what} failed: ${cuda ? cuda.api.cudaGetErrorString(rc) : ""} (cudaError ${rc})`;

  const alloc = ffi.callback(
    callbacks.allocatorAlloc,
    (_a, _name, byteSize, reqType, reqId, userp, buffer, bufferUserp, actualType, actualId) => {
      const size = Number(byteSize);
      const policy = decodePolicy(ffi.address(userp));
      const where = place(policy, reqType, Number(reqId), cuda !== undefined);
      let type = where.type;
      let id = where.id;
      let p = ffi.NULL;
      if (type !== MemoryType.CPU) {
        if (!cuda) {
          return api.TRITONSERVER_ErrorNew(
            ErrorCode.UNAVAILABLE,
            `output memory ${type === MemoryType.GPU ? "GPU" : "CPU_PINNED"} needs libcudart`,
          );
        }
        let rc = type === MemoryType.GPU ? cuda.api.cudaSetDevice(id) : 0;
        if (rc === 0) {
          rc = type === MemoryType.GPU
            ? cuda.api.cudaMalloc(word, size === 0 ? 1 : size)
            : cuda.api.cudaHostAlloc(word, size === 0 ? 1 : size, 0);
        }
        if (rc === 0) {
          p = ffi.fromAddress(word[0]);
        } else if (where.orFallback) {
          type = MemoryType.CPU;
          id = 0;
        } else {
          const fn = type === MemoryType.GPU ? `cudaMalloc on GPU ${id}` : "cudaHostAlloc";
          return api.TRITONSERVER_ErrorNew(
            ErrorCode.INTERNAL,
            cudaError(`${fn} of ${size} bytes`, rc),
          );
        }
      }
      if (type === MemoryType.CPU) {
        p = libc.malloc(size === 0 ? 1 : size);
        if (ffi.isNull(p)) {
          return api.TRITONSERVER_ErrorNew(
            ErrorCode.INTERNAL,
            `malloc of ${size} bytes failed`,
          );
        }
      }
      write64(buffer, BigInt(ffi.address(p)));
      write64(bufferUserp, BigInt((type + 1) | (id << 8)));
      write32(actualType, type);
      write64(actualId, BigInt(id));
      return ffi.NULL;
    },
  );

  const release = ffi.callback(
    callbacks.allocatorRelease,
    (_a, buffer, bufferUserp, _size, memoryType, memoryTypeId) => {
      if (memoryType === MemoryType.CPU || !cuda) {
        libc.free(buffer);
        return ffi.NULL;
      }
      let rc: number;
      if (memoryType === MemoryType.GPU) {
        cuda.api.cudaSetDevice(Number(memoryTypeId));
        rc = cuda.api.cudaFree(buffer);
      } else {
        rc = cuda.api.cudaFreeHost(buffer);
      }
      void bufferUserp;
      return rc === 0
        ? ffi.NULL
        : api.TRITONSERVER_ErrorNew(ErrorCode.INTERNAL, cudaError("freeing an output buffer", rc));
    },
  );

  const query = ffi.callback(
    callbacks.allocatorQuery,
    (_a, userp, _name, _byteSize, memoryType, memoryTypeId) => {
      const requested = new Uint32Array(ffi.view(memoryType, 4))[0];
      const requestedId = Number(new BigInt64Array(ffi.view(memoryTypeId, 8).slice(0))[0]);
      const where = place(decodePolicy(ffi.address(userp)), requested, requestedId, !!cuda);
      write32(memoryType, where.type);
      write64(memoryTypeId, BigInt(where.id));
      return ffi.NULL;
    },
  );

  const bufferAttributes = ffi.callback(
    callbacks.allocatorBufferAttributes,
    (_a, _name, attributes, _userp, bufferUserp) => {
      const code = ffi.address(bufferUserp);
      if (code === 0) return ffi.NULL;
      const err = api.TRITONSERVER_BufferAttributesSetMemoryType(attributes, (code & 0xff) - 1);
      if (!ffi.isNull(err)) return err;
      return api.TRITONSERVER_BufferAttributesSetMemoryTypeId(attributes, BigInt(code >>> 8));
    },
  );

  return {
    alloc,
    release,
    query,
    bufferAttributes,
    useCuda(c: CudaRuntime) {
      cuda = c;
    },
  };
}

/**
 * The same allocator in C, for Bun (compiled by `cc()`). `tritonffi_configure` receives the
 * addresses of the Triton and CUDA functions it calls (CUDA ones NULL until libcudart is loaded).
 */
export const ALLOCATOR_C_SOURCE = `
typedef unsigned long size_t;
typedef long long int64_t;
void* malloc(size_t);
void free(void*);
typedef void* (*error_new_t)(int code, const char* msg);
typedef void* (*attr_set_type_t)(void* attributes, int type);
typedef void* (*attr_set_id_t)(void* attributes, int64_t id);
typedef int (*cuda_malloc_t)(void** p, size_t size);
typedef int (*cuda_host_alloc_t)(void** p, size_t size, unsigned int flags);
typedef int (*cuda_free_t)(void* p);
typedef int (*cuda_set_device_t)(int device);

static error_new_t error_new;
static attr_set_type_t attr_set_type;
static attr_set_id_t attr_set_id;
static cuda_malloc_t cuda_malloc;
static cuda_host_alloc_t cuda_host_alloc;
static cuda_free_t cuda_free;
static cuda_free_t cuda_free_host;
static cuda_set_device_t cuda_set_device;

enum { CPU = 0, CPU_PINNED = 1, GPU = 2, AUTO = 3 };
enum { ERR_INTERNAL = ${ErrorCode.INTERNAL}, ERR_UNAVAILABLE = ${ErrorCode.UNAVAILABLE} };

void tritonffi_configure(void* en, void* ast, void* asi) {
  error_new = (error_new_t)en;
  attr_set_type = (attr_set_type_t)ast;
  attr_set_id = (attr_set_id_t)asi;
}

void tritonffi_use_cuda(void* m, void* ha, void* f, void* fh, void* sd) {
  cuda_malloc = (cuda_malloc_t)m;
  cuda_host_alloc = (cuda_host_alloc_t)ha;
  cuda_free = (cuda_free_t)f;
  cuda_free_host = (cuda_free_t)fh;
  cuda_set_device = (cuda_set_device_t)sd;
}

/* The placement rule of place() in allocator.ts. */
static void place(size_t policy, int req_type, int64_t req_id, int* type, int* id, int* fallback) {
  int kind = (int)(policy & 0xff);
  int auto_ = kind == AUTO;
  *type = auto_ ? req_type : kind;
  *id = *type == GPU ? (auto_ ? (int)req_id : (int)((policy >> 16) & 0xffff)) : 0;
  *fallback = auto_ || (policy & 0x100) != 0;
  if (*type != CPU && cuda_malloc == 0 && *fallback) { *type = CPU; *id = 0; }
}

void* tritonffi_alloc(void* allocator, const char* name, size_t byte_size, int req_type,
                      int64_t req_id, void* userp, void** buffer, void** buffer_userp,
                      int* actual_type, int64_t* actual_id) {
  int type, id, fallback;
  void* p = 0;
  size_t size = byte_size == 0 ? 1 : byte_size;
  place((size_t)userp, req_type, req_id, &type, &id, &fallback);
  if (type != CPU) {
    if (cuda_malloc == 0) return error_new(ERR_UNAVAILABLE, "output memory needs libcudart");
    int rc = type == GPU ? cuda_set_device(id) : 0;
    if (rc == 0) rc = type == GPU ? cuda_malloc(&p, size) : cuda_host_alloc(&p, size, 0);
    if (rc != 0) {
      if (!fallback) {
        return error_new(ERR_INTERNAL, type == GPU ? "cudaMalloc of an output buffer failed"
                                                   : "cudaHostAlloc of an output buffer failed");
      }
      type = CPU;
      id = 0;
    }
  }
  if (type == CPU) {
    p = malloc(size);
    if (p == 0) return error_new(ERR_INTERNAL, "malloc of an output buffer failed");
  }
  *buffer = p;
  *buffer_userp = (void*)(size_t)((type + 1) | (id << 8));
  *actual_type = type;
  *actual_id = id;
  return 0;
}

void* tritonffi_release(void* allocator, void* buffer, void* buffer_userp, size_t byte_size,
                        int type, int64_t id) {
  if (type == CPU || cuda_free == 0) { free(buffer); return 0; }
  int rc;
  if (type == GPU) { cuda_set_device((int)id); rc = cuda_free(buffer); }
  else rc = cuda_free_host(buffer);
  return rc == 0 ? 0 : error_new(ERR_INTERNAL, "freeing an output buffer failed");
}

void* tritonffi_query(void* allocator, void* userp, const char* name, size_t* byte_size,
                      int* memory_type, int64_t* memory_type_id) {
  int type, id, fallback;
  place((size_t)userp, *memory_type, *memory_type_id, &type, &id, &fallback);
  *memory_type = type;
  *memory_type_id = id;
  return 0;
}

void* tritonffi_buffer_attributes(void* allocator, const char* name, void* attributes,
                                  void* userp, void* buffer_userp) {
  size_t code = (size_t)buffer_userp;
  if (code == 0) return 0;
  void* err = attr_set_type(attributes, (int)(code & 0xff) - 1);
  return err ? err : attr_set_id(attributes, (int64_t)(code >> 8));
}
`;

/** The C functions of {@link ALLOCATOR_C_SOURCE} with their neutral signatures. */
export const allocatorCSymbols = {
  tritonffi_configure: { parameters: ["ptr", "ptr", "ptr"], result: "void" },
  tritonffi_use_cuda: { parameters: ["ptr", "ptr", "ptr", "ptr", "ptr"], result: "void" },
  tritonffi_alloc: callbacks.allocatorAlloc,
  tritonffi_release: callbacks.allocatorRelease,
  tritonffi_query: callbacks.allocatorQuery,
  tritonffi_buffer_attributes: callbacks.allocatorBufferAttributes,
} as const;

/** The allocator compiled from C at run time (Bun). */
export function nativeAllocator(lib: TritonLibrary): AllocatorFunctions {
  const { ffi } = lib;
  if (!ffi.compile) throw new Error(`${ffi.name}: no way to run the response allocator`);
  const c = ffi.compile(ALLOCATOR_C_SOURCE, allocatorCSymbols);
  const sym = (name: string) => lib.symbolAddress(name);
  c.call.tritonffi_configure(
    sym("TRITONSERVER_ErrorNew"),
    sym("TRITONSERVER_BufferAttributesSetMemoryType"),
    sym("TRITONSERVER_BufferAttributesSetMemoryTypeId"),
  );
  return {
    alloc: c.pointers.tritonffi_alloc,
    release: c.pointers.tritonffi_release,
    query: c.pointers.tritonffi_query,
    bufferAttributes: c.pointers.tritonffi_buffer_attributes,
    useCuda(cuda: CudaRuntime) {
      const a = cuda.addresses;
      c.call.tritonffi_use_cuda(
        a.cudaMalloc,
        a.cudaHostAlloc,
        a.cudaFree,
        a.cudaFreeHost,
        a.cudaSetDevice,
      );
    },
  };
}
