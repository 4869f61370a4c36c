/**
 * Prints, as a JSON array of `-D` flags, the constants the C sources of `ffi/native/c` are compiled
 * with (`ringDefines()`, `allocatorDefines()`: the same ones Bun's `cc()` receives), for the C
 * reference client's build (bench/run.mjs) to pass to the C compiler.
 *
 * `node tools/native_defines.ts` (or Deno, Bun).
 *
 * @module
 */
import { allocatorDefines } from "../ffi/allocator.ts";
import { ringDefines } from "../ffi/native/bun_ring.ts";

const defines = { ...ringDefines(), ...allocatorDefines() };
console.log(JSON.stringify(Object.entries(defines).map(([k, v]) => `-D${k}=${v}`)));
