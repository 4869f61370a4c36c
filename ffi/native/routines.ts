/**
 * What one instruction set's generated routines are: the contract every generator set
 * (`x86_64/`, and an A64 one beside it) fulfils, and the targets each routine is generated for.
 * Nothing here knows an instruction set; `platform.ts` picks the set for this CPU.
 *
 * Every routine is code made at run time for the address it will run at (`placeCode` in
 * `../os.ts` puts it in executable memory): the ring producers and the allocator's CPU policy
 * (`ring`), the placing allocator's placed outputs (`placing`), the response reader (`reader`),
 * the request submitter (`submit`) and the batch deleter's comparator (`deleteEach`).
 *
 * @module
 */
import type { CacheFlush } from "../os.ts";

/** Everything the ring producers and the allocator's fast path refer to. */
export interface ThunkTargets {
  /** The ring's header address (`ring_layout.ts`). */
  readonly ring: bigint;
  /** Number of slots (a power of two). */
  readonly capacity: number;
  /** The eventfd that wakes the consumer. */
  readonly eventfd: number;
  /** libc `write` (the wake-up) and `sched_yield` (a full ring's backpressure). */
  readonly write: bigint;
  readonly schedYield: bigint;
  /** libc `malloc` and `free`. */
  readonly malloc: bigint;
  readonly free: bigint;
  /** `TRITONSERVER_ErrorNew`, `TRITONSERVER_BufferAttributesSetMemoryType(Id)`. */
  readonly errorNew: bigint;
  readonly setMemoryType: bigint;
  readonly setMemoryTypeId: bigint;
  /** The JS allocator's function pointers, for every policy but CPU. */
  readonly jsAlloc: bigint;
  readonly jsRelease: bigint;
  readonly jsQuery: bigint;
  readonly jsBufferAttributes: bigint;
}

/** Offsets of the ring producers' and the allocator's entry points in their code. */
export interface ThunkEntries {
  readonly responseComplete: number;
  readonly requestRelease: number;
  readonly alloc: number;
  readonly release: number;
  readonly query: number;
  readonly bufferAttributes: number;
}

/** The code and where each function starts. */
export interface ThunkCode {
  readonly code: Uint8Array;
  readonly entries: ThunkEntries;
}

/** What the placing allocator's code jumps to. */
export interface PlacingTargets {
  /** The JS placing alloc: every case but a placed output that fits. */
  readonly jsAlloc: bigint;
  /** The ordinary allocator's release (the CPU fast path's routine). */
  readonly release: bigint;
}

/** Offsets of the placing allocator's entry points in its code. */
export interface PlacingEntries {
  readonly alloc: number;
  readonly release: number;
}

/** The functions the response reader calls. */
export interface ReaderTargets {
  readonly responseError: bigint;
  readonly outputCount: bigint;
  readonly output: bigint;
  readonly model: bigint;
  readonly id: bigint;
  readonly parameterCount: bigint;
  readonly parameter: bigint;
  /** libc `memcpy` and `memccpy`. */
  readonly memcpy: bigint;
  readonly memccpy: bigint;
}

/** Offsets of the C ring producers' atomic operations in their code (`Routines.atomics`). */
export interface AtomicsEntries {
  /** `uint64_t fetchIncrement(uint64_t* p)`: `*p += 1`, the old value (acquire and release). */
  readonly fetchIncrement: number;
  /** `uint32_t exchange(uint32_t* p, uint32_t v)`: `*p = v`, the old value (acquire and
   * release). */
  readonly exchange: number;
  /** `uint32_t loadAcquire(uint32_t* p)`. */
  readonly loadAcquire: number;
}

/** The message of the error the allocator's fast path returns when malloc fails (stored after
 * the code). */
export const MALLOC_FAILED = "malloc of an output buffer failed";

/** One instruction set's generators. Each returns fresh bytes; none places them. */
export interface Routines {
  /** The instruction set, as Linux names the CPU (`x86_64`, `aarch64`). */
  readonly arch: string;
  /** The ring producers and the allocator's CPU policy, for `targets`. */
  ring(targets: ThunkTargets): ThunkCode;
  /** The placing allocator's `alloc` and `release`. */
  placing(targets: PlacingTargets): { code: Uint8Array; entries: PlacingEntries };
  /** The response reader; it starts at offset 0. */
  reader(targets: ReaderTargets): Uint8Array;
  /** The request submitter; it starts at offset 0 (nothing embedded). */
  submit(): Uint8Array;
  /** The batch deleter's comparator; it starts at offset 0 (nothing embedded). */
  deleteEach(): Uint8Array;
  /** What makes placed code visible to instruction fetch (`placeCode` runs it): nothing on
   * x86-64, the data and instruction cache maintenance of the range on aarch64. */
  readonly flush: CacheFlush;
  /** The atomic operations of Bun's C ring producers (`../c/ring_producer.c`), where TinyCC has
   * none of its own for this CPU (aarch64); absent where the C makes them itself (x86-64). */
  atomics?(): { code: Uint8Array; entries: AtomicsEntries };
}
