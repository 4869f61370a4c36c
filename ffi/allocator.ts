/**
 * The response allocator's functions: where Triton's output buffers come from.
 *
 * Each request passes a memory *policy* as the allocator's `userp` (an integer, see
 * {@link encodePolicy}): the memory type the user asked for (CPU, CPU_PINNED, GPU, or AUTO =
 * whatever Triton requests), the GPU id, and whether falling back to host memory is allowed.
 * Host memory comes from libc `malloc`/`free`; pinned and device memory from `libcudart`
 * (`cudaHostAlloc`/`cudaFreeHost`, `cudaMalloc`/`cudaFree`) once it has been loaded.
 *
 * The buffer's actual memory type and id travel in `buffer_userp` ({@link encodeBufferUserp}), so
 * release frees with the matching function and the buffer-attributes function can report them.
 *
 * Where a buffer goes is {@link place}, stated once. Two allocators follow it: this module's JS one
 * (Deno and Node, whose callbacks return values to Triton's threads) and `ffi/native/c/allocator.c`
 * compiled at run time by Bun's `cc()` from {@link placementTable}.
 *
 * Each also has a *placing* set of functions ({@link AllocatorFunctions.placing}), for a second
 * `TRITONSERVER_ResponseAllocator` that the server creates the first time a request places
 * outputs (KServe's system shared memory: outputs written straight into the client's region, as
 * tritonserver's response allocators do). Its `userp` is the request's output placement table
 * (`output_placement.ts`): an output named there gets the table's address when it fits, else
 * tritonserver's INTERNAL error; its `buffer_userp` is {@link BufferUserp.REGION}, so release
 * frees nothing. Any other output of that request is allocated and released by the table's
 * policy, exactly as above. The placing functions are JS on Deno and Node (Triton's thread waits
 * for the JS thread, on placing requests only: bench/README.md, "Costs the code is shaped by";
 * with the native callbacks a placed output that fits is served by generated code,
 * `native/x86_64/placing.ts`, without that wait) and C on Bun; requests that place nothing
 * never reach them, so the ordinary allocator and its native fast path are unchanged.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import type { CudaRuntime } from "./cuda.ts";
import { ErrorCode, MemoryType } from "./enums.ts";
import { readOutputPlacement } from "./output_placement.ts";
import { callbacks } from "./symbols.ts";
import type { NativeLibrary, Ptr } from "./types.ts";

/** The memory a request asks its outputs to land in. */
export const PolicyKind = { CPU: 0, CPU_PINNED: 1, GPU: 2, AUTO: 3 } as const;

/** The bits of a policy integer: the kind in the low byte, FALLBACK, the GPU id from bit 16. */
export const PolicyBits = {
  KIND_MASK: 0xff,
  FALLBACK: 0x100,
  DEVICE_SHIFT: 16,
  DEVICE_MASK: 0xffff,
} as const;

/** Packs a policy into the integer passed as the allocator's `userp`. */
export function encodePolicy(kind: number, deviceId: number, fallback: boolean): number {
  return kind | (fallback ? PolicyBits.FALLBACK : 0) | (deviceId << PolicyBits.DEVICE_SHIFT);
}

/** Unpacks {@link encodePolicy}. */
export function decodePolicy(userp: number): { kind: number; deviceId: number; fallback: boolean } {
  return {
    kind: userp & PolicyBits.KIND_MASK,
    deviceId: (userp >>> PolicyBits.DEVICE_SHIFT) & PolicyBits.DEVICE_MASK,
    fallback: (userp & PolicyBits.FALLBACK) !== 0,
  };
}

/** The bits of an allocated buffer's `buffer_userp`: its memory type + 1 (never 0), its id from
 * bit 8; REGION (a low byte no memory type gives) marks a buffer the placing allocator did not
 * allocate (host memory at the address a request gave: released, nothing is freed). */
export const BufferUserp = { TYPE_OFFSET: 1, ID_SHIFT: 8, REGION: 0xff } as const;

/** The `buffer_userp` of a buffer of memory `type` and id `id`. */
export function encodeBufferUserp(type: number, id: number): number {
  return (type + BufferUserp.TYPE_OFFSET) | (id << BufferUserp.ID_SHIFT);
}

/** Unpacks {@link encodeBufferUserp}. */
export function decodeBufferUserp(code: number): { type: number; id: number } {
  const low = (1 << BufferUserp.ID_SHIFT) - 1;
  return { type: (code & low) - BufferUserp.TYPE_OFFSET, id: code >>> BufferUserp.ID_SHIFT };
}

/** The function pointers to hand to `TRITONSERVER_ResponseAllocatorNew` and its setters. */
export interface AllocatorFunctions {
  readonly alloc: Ptr;
  readonly release: Ptr;
  readonly query: Ptr;
  readonly bufferAttributes: Ptr;
  /** Makes pinned and device memory available once `libcudart` is loaded. */
  useCuda(cuda: CudaRuntime): void;
  /** The placing allocator's functions (see the module doc), made on first call; it has no
   * buffer-attributes function (NULL). */
  placing(): AllocatorPointers;
}

/** The four function pointers of a `TRITONSERVER_ResponseAllocator` (alloc, release, query,
 * buffer attributes). */
export type AllocatorPointers = Omit<AllocatorFunctions, "useCuda" | "placing">;

/**
 * The memory-placement rule, stated once: where the output buffer of a request with `policy`
 * goes when Triton asks for `requestedType`/`requestedId`. AUTO takes what Triton asks; any other
 * kind takes its own type (and, for GPU, the policy's device). AUTO, or a policy allowing it,
 * falls back to CPU memory where pinned or device memory is unavailable (`orFallback`; here:
 * libcudart not loaded; the allocators also fall back when the CUDA allocation fails).
 *
 * The JS allocator calls it; the C allocator (`ffi/native/c/allocator.c`) looks it up in
 * {@link placementTable}; the x86-64 routines' CPU fast path is checked against it
 * (`native/x86_64/ring.ts`).
 */
export function place(
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

/** How an entry of {@link placementTable} packs a decision of {@link place}: the memory type
 * (TYPE_MASK), where the id comes from (ID_* from ID_SHIFT), and FALLBACK. */
export const PlacementEntry = {
  TYPE_MASK: 0x3,
  ID_SHIFT: 2,
  ID_MASK: 0x3,
  ID_ZERO: 0,
  ID_REQUESTED: 1,
  ID_POLICY: 2,
  FALLBACK: 0x10,
} as const;

/**
 * {@link place} evaluated over its whole domain, for native code: entry
 * `((kind * memoryTypes + requestedType) * 2 + fallback) * 2 + cudaLoaded`, packed as
 * {@link PlacementEntry}.
 */
export function placementTable(): number[] {
  const E = PlacementEntry;
  const requestedId = 1;
  const deviceId = 2; // distinct ids tell where place() took the id from
  const kinds = Object.keys(PolicyKind).length;
  const types = Object.keys(MemoryType).length;
  const dense = (values: number[]) => values.every((_, i, all) => all.includes(i));
  if (!dense(Object.values(PolicyKind)) || !dense(Object.values(MemoryType))) {
    throw new Error("the policy kinds and memory types must be 0 .. n-1: the table is indexed so");
  }
  const table: number[] = [];
  for (let kind = 0; kind < kinds; kind++) {
    for (let requested = 0; requested < types; requested++) {
      for (const fallback of [false, true]) {
        for (const cuda of [false, true]) {
          const p = place({ kind, deviceId, fallback }, requested, requestedId, cuda);
          const from = p.id === 0
            ? E.ID_ZERO
            : p.id === requestedId
            ? E.ID_REQUESTED
            : p.id === deviceId
            ? E.ID_POLICY
            : -1;
          if (from < 0 || (p.type & ~E.TYPE_MASK) !== 0) {
            throw new Error(`place() decided ${JSON.stringify(p)}: not a table entry`);
          }
          table.push(p.type | (from << E.ID_SHIFT) | (p.orFallback ? E.FALLBACK : 0));
        }
      }
    }
  }
  return table;
}

/** The allocator implemented in JS, for runtimes whose callbacks return to Triton's threads. */
export function jsAllocator(lib: NativeLibrary): AllocatorFunctions {
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

  /** Allocates by the policy integer `policyCode`; Triton's error pointer or NULL. */
  const allocate = (
    byteSize: number | bigint,
    reqType: number,
    reqId: number | bigint,
    policyCode: number,
    buffer: Ptr,
    bufferUserp: Ptr,
    actualType: Ptr,
    actualId: Ptr,
  ): Ptr => {
    const size = Number(byteSize);
    const policy = decodePolicy(policyCode);
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
    write64(bufferUserp, BigInt(encodeBufferUserp(type, id)));
    write32(actualType, type);
    write64(actualId, BigInt(id));
    return ffi.NULL;
  };
  const alloc = ffi.callback(
    callbacks.allocatorAlloc,
    (_a, _name, byteSize, reqType, reqId, userp, buffer, bufferUserp, actualType, actualId) =>
      allocate(
        byteSize,
        reqType,
        reqId,
        ffi.address(userp),
        buffer,
        bufferUserp,
        actualType,
        actualId,
      ),
  );

  /** Frees a buffer of {@link allocate}; Triton's error pointer or NULL. */
  const free = (buffer: Ptr, memoryType: number, memoryTypeId: number | bigint): Ptr => {
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
    return rc === 0
      ? ffi.NULL
      : api.TRITONSERVER_ErrorNew(ErrorCode.INTERNAL, cudaError("freeing an output buffer", rc));
  };
  const release = ffi.callback(
    callbacks.allocatorRelease,
    (_a, buffer, _bufferUserp, _size, memoryType, memoryTypeId) =>
      free(buffer, memoryType, memoryTypeId),
  );

  /** Answers a query by the policy integer `policyCode`. */
  const answer = (policyCode: number, memoryType: Ptr, memoryTypeId: Ptr): Ptr => {
    const requested = new Uint32Array(ffi.view(memoryType, 4))[0];
    const requestedId = Number(new BigInt64Array(ffi.view(memoryTypeId, 8).slice(0))[0]);
    const where = place(decodePolicy(policyCode), requested, requestedId, !!cuda);
    write32(memoryType, where.type);
    write64(memoryTypeId, BigInt(where.id));
    return ffi.NULL;
  };
  const query = ffi.callback(
    callbacks.allocatorQuery,
    (_a, userp, _name, _byteSize, memoryType, memoryTypeId) =>
      answer(ffi.address(userp), memoryType, memoryTypeId),
  );

  const bufferAttributes = ffi.callback(
    callbacks.allocatorBufferAttributes,
    (_a, _name, attributes, _userp, bufferUserp) => {
      const code = ffi.address(bufferUserp);
      if (code === 0) return ffi.NULL;
      const { type, id } = decodeBufferUserp(code);
      const err = api.TRITONSERVER_BufferAttributesSetMemoryType(attributes, type);
      if (!ffi.isNull(err)) return err;
      return api.TRITONSERVER_BufferAttributesSetMemoryTypeId(attributes, BigInt(id));
    },
  );

  let placing: AllocatorPointers | undefined;
  const makePlacing = (): AllocatorPointers => ({
    alloc: ffi.callback(
      callbacks.allocatorAlloc,
      (_a, name, byteSize, reqType, reqId, userp, buffer, bufferUserp, actualType, actualId) => {
        const table = readOutputPlacement(ffi, userp);
        const tensor = ffi.isNull(name) ? undefined : ffi.cstring(name);
        const at = tensor === undefined ? undefined : table.find(tensor);
        if (at === undefined) {
          return allocate(
            byteSize,
            reqType,
            reqId,
            table.policy,
            buffer,
            bufferUserp,
            actualType,
            actualId,
          );
        }
        const size = Number(byteSize);
        if (size > at.byteSize) {
          return api.TRITONSERVER_ErrorNew(
            ErrorCode.INTERNAL,
            placedTooSmall(tensor!, at.byteSize, size),
          );
        }
        write64(buffer, BigInt(at.address));
        write64(bufferUserp, BigInt(BufferUserp.REGION));
        write32(actualType, MemoryType.CPU);
        write64(actualId, 0n);
        return ffi.NULL;
      },
    ),
    release: ffi.callback(
      callbacks.allocatorRelease,
      (_a, buffer, bufferUserp, _size, memoryType, memoryTypeId) =>
        ffi.address(bufferUserp) === BufferUserp.REGION
          ? ffi.NULL
          : free(buffer, memoryType, memoryTypeId),
    ),
    query: ffi.callback(
      callbacks.allocatorQuery,
      (_a, userp, name, _byteSize, memoryType, memoryTypeId) => {
        const table = readOutputPlacement(ffi, userp);
        if (ffi.isNull(name) || table.find(ffi.cstring(name)) === undefined) {
          return answer(table.policy, memoryType, memoryTypeId);
        }
        write32(memoryType, MemoryType.CPU);
        write64(memoryTypeId, 0n);
        return ffi.NULL;
      },
    ),
    // None: the core reports a buffer's memory as alloc gave it, and each call of a JS function
    // makes Triton's thread wait for the JS thread.
    bufferAttributes: ffi.NULL,
  });

  return {
    alloc,
    release,
    query,
    bufferAttributes,
    useCuda(c: CudaRuntime) {
      cuda = c;
    },
    placing() {
      return placing ??= makePlacing();
    },
  };
}

/** tritonserver's error for an output larger than the part of a region the request gave it
 * (the C allocator writes the same; the KServe front ends use it for outputs they copy into a
 * CUDA region). */
export function placedTooSmall(name: string, available: number, needed: number): string {
  return `shared memory size specified with the request for output '${name}' ` +
    `(${available} bytes) should be at least ${needed} bytes to hold the results`;
}

/** The constants `ffi/native/c/allocator.c` is compiled with (its rule is
 * {@link placementTable}). */
export function allocatorDefines(): Record<string, string> {
  const d: Record<string, string> = {
    TRITONFFI_PLACEMENT: `{${placementTable().join(",")}}`,
    TRITONFFI_POLICY_KINDS: String(Object.keys(PolicyKind).length),
    TRITONFFI_MEMORY_TYPES: String(Object.keys(MemoryType).length),
    TRITONFFI_ERROR_INTERNAL: String(ErrorCode.INTERNAL),
    TRITONFFI_ERROR_INVALID_ARG: String(ErrorCode.INVALID_ARG),
    TRITONFFI_ERROR_UNAVAILABLE: String(ErrorCode.UNAVAILABLE),
  };
  const groups = {
    MEMORY: MemoryType,
    POLICY: PolicyBits,
    BUFFER_USERP: BufferUserp,
    PLACEMENT: PlacementEntry,
  };
  for (const [group, values] of Object.entries(groups)) {
    for (const [k, v] of Object.entries(values)) d[`TRITONFFI_${group}_${k}`] = String(v);
  }
  return d;
}

/** The path of the C source (read by the compiler where the module is a file). */
export function allocatorSource(): string {
  return fileURLToPath(new URL("./native/c/allocator.c", import.meta.url));
}

/** The C functions of `ffi/native/c/allocator.c` with their neutral signatures. */
export const allocatorCSymbols = {
  tritonffi_configure: { parameters: ["ptr", "ptr", "ptr"], result: "void" },
  tritonffi_use_cuda: { parameters: ["ptr", "ptr", "ptr", "ptr", "ptr"], result: "void" },
  tritonffi_alloc: callbacks.allocatorAlloc,
  tritonffi_release: callbacks.allocatorRelease,
  tritonffi_query: callbacks.allocatorQuery,
  tritonffi_buffer_attributes: callbacks.allocatorBufferAttributes,
  tritonffi_placed_alloc: callbacks.allocatorAlloc,
  tritonffi_placed_release: callbacks.allocatorRelease,
  tritonffi_placed_query: callbacks.allocatorQuery,
} as const;

/** The allocator compiled from C at run time (Bun). */
export function nativeAllocator(lib: NativeLibrary): AllocatorFunctions {
  const { ffi } = lib;
  if (!ffi.compile) throw new Error(`${ffi.name}: no way to run the response allocator`);
  const c = ffi.compile(allocatorSource(), allocatorDefines(), allocatorCSymbols);
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
    placing() {
      return {
        alloc: c.pointers.tritonffi_placed_alloc,
        release: c.pointers.tritonffi_placed_release,
        query: c.pointers.tritonffi_placed_query,
        bufferAttributes: ffi.NULL,
      };
    },
  };
}
