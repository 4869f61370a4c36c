/**
 * The URL of a module beside the calling one, as it is where that one runs: `name.ts` from the
 * sources, `name.js` from the built package (dist/), for the modules a worker thread starts.
 *
 * @module
 */

/** `name` (no extension) beside the module of `importMetaUrl`, with that module's extension. */
export function moduleBeside(importMetaUrl: string, name: string): URL {
  const extension = new URL(importMetaUrl).pathname.endsWith(".ts") ? ".ts" : ".js";
  return new URL(`./${name}${extension}`, importMetaUrl);
}
