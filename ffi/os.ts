/**
 * The Linux calls behind the native fast path, through libc FFI: pages for the completion ring and
 * for generated code (`mmap`, `mprotect`: written while read+write, then switched to read+execute,
 * never both), and the consumer's wake-up file descriptor: a `pipe` watched by the event loop, or
 * an `eventfd` read by a blocking `read` made off the JS thread (Deno `nonblocking`, koffi
 * `fn.async`); `bsearch`, through which JS calls the generated response reader; and `lfind`,
 * through which a batch of native deletes runs off the JS thread (`native/deletes.ts`).
 * `shm_open`, `lseek`, `close` and `sysconf` (the page size) open and map a client's POSIX shared
 * memory for `shared_memory.ts`.
 *
 * @module
 */
import { LIBC_PATH } from "./libc.ts";
import { runtimeName } from "./runtime.ts";
import type { SymbolDef } from "./symbols.ts";
import type { FfiRuntime, OpenedLibrary, Ptr } from "./types.ts";

/** The libc functions used here. */
export const osSymbols = {
  mmap: {
    parameters: [
      "ptr", // void* addr
      "usize", // size_t length
      "i32", // int prot
      "i32", // int flags
      "i32", // int fd
      "i64", // off_t offset
    ],
    result: "ptr", // void*
    since: 0,
  },
  mprotect: {
    parameters: [
      "ptr", // void* addr
      "usize", // size_t len
      "i32", // int prot
    ],
    result: "i32", // int
    since: 0,
  },
  munmap: {
    parameters: [
      "ptr", // void* addr
      "usize", // size_t length
    ],
    result: "i32", // int
    since: 0,
  },
  eventfd: {
    parameters: [
      "u32", // unsigned int initval
      "i32", // int flags
    ],
    result: "i32", // int
    since: 0,
  },
  pipe2: {
    parameters: [
      "buf", // int pipefd[2]
      "i32", // int flags
    ],
    result: "i32", // int
    since: 0,
  },
  write: {
    parameters: [
      "i32", // int fd
      "buf", // const void* buf
      "usize", // size_t count
    ],
    result: "i64", // ssize_t
    since: 0,
  },
  bsearch: {
    // Calls generated code from JS: with one element, bsearch calls its comparator once, with
    // (key, base), and returns base when it returned 0 (see native/response_reader.ts).
    parameters: [
      "ptr", // const void* key
      "ptr", // const void* base
      "usize", // size_t nmemb
      "usize", // size_t size
      "ptr", // int (*compar)(const void*, const void*)
    ],
    result: "ptr", // void*
    since: 0,
  },
  lfind: {
    // Runs generated code off the JS thread: lfind calls its comparator with (key, element) for
    // each element in order until one returns 0; native/deletes.ts's comparator deletes the
    // object in the element and returns 1, so one call deletes a whole batch.
    parameters: [
      "buf", // const void* key
      "buf", // const void* base
      "buf", // size_t* nmemb
      "usize", // size_t size
      "ptr", // int (*compar)(const void*, const void*)
    ],
    result: "ptr", // void*
    since: 0,
    mayBlock: true,
  },
  read: {
    parameters: [
      "i32", // int fd
      "buf", // void* buf
      "usize", // size_t count
    ],
    result: "i64", // ssize_t
    since: 0,
    mayBlock: true, // blocks until the eventfd is written: runs off the JS thread
  },
  shm_open: {
    parameters: [
      "cstr", // const char* name
      "i32", // int oflag
      "u32", // mode_t mode
    ],
    result: "i32", // int
    since: 0,
  },
  lseek: {
    parameters: [
      "i32", // int fd
      "i64", // off_t offset
      "i32", // int whence
    ],
    result: "i64", // off_t
    since: 0,
  },
  close: {
    parameters: [
      "i32", // int fd
    ],
    result: "i32", // int
    since: 0,
  },
  sysconf: {
    parameters: [
      "i32", // int name
    ],
    result: "i64", // long
    since: 0,
  },
} as const satisfies Record<string, SymbolDef>;

export const PROT_READ = 0x1;
export const PROT_WRITE = 0x2;
const PROT_EXEC = 0x4;
const MAP_PRIVATE = 0x02;
const MAP_ANONYMOUS = 0x20;
/** `EFD_CLOEXEC` and `O_CLOEXEC` (the same value on Linux). */
const EFD_CLOEXEC = 0o2000000;
/** Page size assumed for code (4 KiB on x86-64 Linux; mmap rounds lengths up anyway). */
export const PAGE_SIZE = 4096;

/** `sysconf(_SC_PAGESIZE)`'s name on Linux. */
const SC_PAGESIZE = 30;

/** The system's page size in bytes (what an `mmap` offset must be a multiple of: 4 KiB on x86-64,
 * up to 64 KiB on aarch64). */
export function systemPageSize(ffi: FfiRuntime): number {
  const size = Number(os(ffi).sync.sysconf(SC_PAGESIZE));
  return size > 0 ? size : PAGE_SIZE;
}

/** libc's calls bound by each runtime adapter (there is one per process). */
const opened = new WeakMap<FfiRuntime, OpenedLibrary<typeof osSymbols>>();

/** libc's calls of {@link osSymbols}, bound once per runtime adapter. */
export function os(ffi: FfiRuntime): OpenedLibrary<typeof osSymbols> {
  let lib = opened.get(ffi);
  if (lib === undefined) opened.set(ffi, lib = ffi.open(LIBC_PATH, osSymbols));
  return lib;
}

/** Why executable memory was refused (SELinux `execmem`, PaX, a seccomp policy...). */
export class ExecMemoryError extends Error {
  override name = "ExecMemoryError";
}

/** Whether an `mmap` result is `MAP_FAILED` ((void*)-1). */
export function mapFailed(ffi: FfiRuntime, p: Ptr): boolean {
  return ffi.isNull(p) || ffi.address(p) >= 2 ** 63;
}

/**
 * Maps `length` bytes of zeroed private read+write memory, never unmapped (the ring and the code
 * live as long as the process: Triton's threads may use them until it exits).
 * @throws {Error} when mmap fails.
 */
export function mapMemory(ffi: FfiRuntime, length: number): Ptr {
  const p = os(ffi).sync.mmap(
    ffi.NULL,
    length,
    PROT_READ | PROT_WRITE,
    MAP_PRIVATE | MAP_ANONYMOUS,
    -1,
    0,
  );
  if (mapFailed(ffi, p)) throw new Error(`mmap of ${length} bytes failed`);
  return p;
}

/**
 * Makes the `length` bytes of code just written at `code` visible to instruction fetch, before
 * they first run. Each instruction set says what that takes (`native/routines.ts`,
 * `Routines.flush`):
 * - x86-64 keeps its instruction cache coherent with stores: nothing ({@link coherentCaches}).
 * - aarch64 does not: for each cache line of the range the data cache is cleaned to the point of
 *   unification (`dc cvau`), then, after `dsb ish`, the instruction cache invalidated (`ic ivau`),
 *   then `dsb ish` and `isb` — what GCC's `__clear_cache` does, line sizes read from `ctr_el0`.
 *   Code run from JS (a generated routine, or a libc/libgcc function) must do it; a JS write is
 *   no substitute.
 * @throws {Error} when the flush cannot be made (the code is then not used).
 */
export type CacheFlush = (ffi: FfiRuntime, code: Ptr, length: number) => void;

/** The {@link CacheFlush} of a CPU whose instruction fetch sees its own stores (x86-64): none. */
export const coherentCaches: CacheFlush = () => {};

/**
 * Places machine code in fresh pages — the one way generated code reaches executable memory:
 * maps them read+write, writes `generate(address)` (code made for the address it will run at),
 * makes them read+execute, then runs `flush` over them (the instruction set's {@link CacheFlush}).
 * The pages are never writable and executable at once, and never unmapped (Triton's threads may
 * call the code until the process exits).
 * @throws {ExecMemoryError} when the system refuses executable memory.
 * @throws {Error} when the code exceeds `length` bytes, or `flush` throws.
 */
export function placeCode(
  ffi: FfiRuntime,
  length: number,
  generate: (address: bigint) => Uint8Array,
  flush: CacheFlush,
): Ptr {
  const { sync } = os(ffi);
  const p = mapMemory(ffi, length);
  const code = generate(BigInt(ffi.address(p)));
  if (code.length > length) throw new Error(`${code.length} bytes of code exceed ${length}`);
  new Uint8Array(ffi.view(p, length)).set(code);
  if (sync.mprotect(p, length, PROT_READ | PROT_EXEC) !== 0) {
    sync.munmap(p, length);
    throw new ExecMemoryError("mprotect(PROT_READ | PROT_EXEC) was refused");
  }
  flush(ffi, p, code.length);
  return p;
}

/** A new blocking eventfd (close-on-exec). @throws {Error} when eventfd fails. */
export function createEventfd(ffi: FfiRuntime): number {
  const fd = os(ffi).sync.eventfd(0, EFD_CLOEXEC);
  if (fd < 0) throw new Error("eventfd failed");
  return fd;
}

/** A new pipe (close-on-exec): `[read end, write end]`. @throws {Error} when pipe2 fails. */
export function createPipe(ffi: FfiRuntime): [number, number] {
  const fds = new Int32Array(2);
  if (os(ffi).sync.pipe2(fds, EFD_CLOEXEC) !== 0) throw new Error("pipe2 failed");
  return [fds[0], fds[1]];
}

/** The CPU architecture, as Linux names it (`x86_64`, `aarch64`, …), and whether this is Linux. */
export function platform(): { arch: string; linux: boolean } {
  const deno = (globalThis as { Deno?: { build: { arch: string; os: string } } }).Deno;
  if (runtimeName() === "deno" && deno) {
    return { arch: deno.build.arch, linux: deno.build.os === "linux" };
  }
  const proc = (globalThis as { process?: { arch: string; platform: string } }).process;
  const arch = proc?.arch === "x64"
    ? "x86_64"
    : proc?.arch === "arm64"
    ? "aarch64"
    : String(proc?.arch);
  return { arch, linux: proc?.platform === "linux" };
}
