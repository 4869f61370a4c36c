/**
 * The few libc functions the binding calls: host memory for the response allocator, writes
 * through native pointers, and pinning a loaded library.
 *
 * @module
 */
import type { SymbolDef } from "./symbols.ts";

/** libc symbols, described like the Triton table. */
export const libcSymbols = {
  malloc: {
    parameters: [
      "usize", // size_t size
    ],
    result: "ptr", // void*
    since: 0,
  },
  free: {
    parameters: [
      "ptr", // void* ptr
    ],
    result: "void",
    since: 0,
  },
  memcpy: {
    parameters: [
      "ptr", // void* dest
      "buf", // const void* src
      "usize", // size_t n
    ],
    result: "ptr", // void*
    since: 0,
  },
  dlopen: {
    parameters: [
      "cstr", // const char* filename
      "i32", // int flags
    ],
    result: "ptr", // void*
    since: 0,
  },
  dlsym: {
    parameters: [
      "ptr", // void* handle
      "cstr", // const char* symbol
    ],
    result: "ptr", // void*
    since: 0,
  },
} as const satisfies Record<string, SymbolDef>;

/** `dlopen` flags (glibc values). */
export const RTLD_NOW = 0x2;
/** Do not load; only find an already loaded library. */
export const RTLD_NOLOAD = 0x4;
/** Never unload the library, even when every handle is closed. */
export const RTLD_NODELETE = 0x1000;

/** The C library's soname on glibc Linux. */
export const LIBC_PATH = "libc.so.6";
