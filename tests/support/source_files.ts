/**
 * The repository's own source files, for tests that read them (the ffi/ face, the @examples).
 *
 * @module
 */
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT: string = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Every `.ts` file under `dir`, as paths relative to the repository root. */
export function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...tsFiles(path));
    else if (name.endsWith(".ts")) out.push(path);
  }
  return out;
}
