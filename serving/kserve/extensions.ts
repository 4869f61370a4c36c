/**
 * The protocol extensions the front ends report (`/v2`, ServerMetadata): Triton's core's, less
 * those no front end of this project serves.
 *
 * @module
 */

/** Protocol extensions Triton's core reports that the front ends do not serve. */
const UNSERVED_EXTENSIONS: ReadonlySet<string> = new Set([
  "system_shared_memory",
  "cuda_shared_memory",
]);

/** `extensions` (the core's) less the unserved ones, but for those in `enabled` (served by this
 * front end because it was given what they need, e.g. `system_shared_memory`). */
export function servedExtensions(
  extensions: readonly string[],
  enabled: readonly string[] = [],
): string[] {
  return extensions.filter((e) => !UNSERVED_EXTENSIONS.has(e) || enabled.includes(e));
}
