/**
 * Places the generated x86-64 thunks in executable memory and returns their function pointers.
 *
 * @module
 */
import { PAGE_SIZE, placeCode } from "../os.ts";
import type { FfiRuntime, Ptr } from "../types.ts";
import { generateX8664, type ThunkEntries, type ThunkTargets } from "./x86_64/ring.ts";
import {
  generatePlacingX8664,
  type PlacingEntries,
  type PlacingTargets,
} from "./x86_64/placing.ts";

/** A function pointer per thunk. */
export type ThunkPointers = { readonly [K in keyof ThunkEntries]: Ptr };

/**
 * Generates the thunks for `targets` at a fresh page and makes it read+execute (never unmapped:
 * Triton's threads may call them until the process exits).
 * @throws {ExecMemoryError} when executable memory is refused.
 */
export function installThunks(
  ffi: FfiRuntime,
  targets: Omit<ThunkTargets, "base">,
): ThunkPointers {
  let entries: ThunkEntries | undefined;
  const page = placeCode(ffi, PAGE_SIZE, (base) => {
    const generated = generateX8664({ ...targets, base });
    entries = generated.entries;
    return generated.code;
  });
  const base = ffi.address(page);
  const pointers: Record<string, Ptr> = {};
  for (const [name, offset] of Object.entries(entries!)) {
    pointers[name] = ffi.fromAddress(base + offset);
  }
  return pointers as ThunkPointers;
}

/**
 * Generates the placing allocator's thunks (`x86_64/placing.ts`) at a fresh page, as
 * {@link installThunks} does.
 * @throws {ExecMemoryError} when executable memory is refused.
 */
export function installPlacingThunks(
  ffi: FfiRuntime,
  targets: PlacingTargets,
): { readonly [K in keyof PlacingEntries]: Ptr } {
  let entries: PlacingEntries | undefined;
  const page = placeCode(ffi, PAGE_SIZE, () => {
    const generated = generatePlacingX8664(targets);
    entries = generated.entries;
    return generated.code;
  });
  const base = ffi.address(page);
  return {
    alloc: ffi.fromAddress(base + entries!.alloc),
    release: ffi.fromAddress(base + entries!.release),
  };
}
