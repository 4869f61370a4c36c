/**
 * Places the generated ring producers and allocator routines in executable memory and returns
 * their function pointers.
 *
 * @module
 */
import { PAGE_SIZE, placeCode } from "../os.ts";
import type { FfiRuntime, Ptr } from "../types.ts";
import type {
  PlacingEntries,
  PlacingTargets,
  Routines,
  ThunkEntries,
  ThunkTargets,
} from "./routines.ts";

/** A function pointer per generated routine of {@link ThunkEntries}. */
export type ThunkPointers = { readonly [K in keyof ThunkEntries]: Ptr };

/**
 * Generates `routines.ring` for `targets` at a fresh page and makes it read+execute (never
 * unmapped: Triton's threads may call them until the process exits).
 * @throws {ExecMemoryError} when executable memory is refused.
 */
export function installThunks(
  ffi: FfiRuntime,
  routines: Routines,
  targets: ThunkTargets,
): ThunkPointers {
  let entries: ThunkEntries | undefined;
  const page = placeCode(ffi, PAGE_SIZE, () => {
    const generated = routines.ring(targets);
    entries = generated.entries;
    return generated.code;
  }, routines.flush);
  const base = ffi.address(page);
  const pointers: Record<string, Ptr> = {};
  for (const [name, offset] of Object.entries(entries!)) {
    pointers[name] = ffi.fromAddress(base + offset);
  }
  return pointers as ThunkPointers;
}

/**
 * Generates the placing allocator's routines (`routines.placing`) at a fresh page, as
 * {@link installThunks} does.
 * @throws {ExecMemoryError} when executable memory is refused.
 */
export function installPlacingThunks(
  ffi: FfiRuntime,
  routines: Routines,
  targets: PlacingTargets,
): { readonly [K in keyof PlacingEntries]: Ptr } {
  let entries: PlacingEntries | undefined;
  const page = placeCode(ffi, PAGE_SIZE, () => {
    const generated = routines.placing(targets);
    entries = generated.entries;
    return generated.code;
  }, routines.flush);
  const base = ffi.address(page);
  return {
    alloc: ffi.fromAddress(base + entries!.alloc),
    release: ffi.fromAddress(base + entries!.release),
  };
}
