// Compiles test-only C sources into a shared library under .build/ with the system `cc` ($CC
// overrides it): `cc -std=c11 -O2 -g -Wall -Wextra -fPIC -shared -pthread -Wl,-soname,FILE -o OUT
// SOURCES`.
// Plain Node ESM with node: built-ins only, so Deno and Bun run it too.
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Builds `.build/<folder>/<file>` from `sources` (paths relative to the repository root); exits
 * the process with cc's status when the compile fails.
 */
export function buildSharedLibrary(label, folder, file, sources) {
  const outDir = join(root, ".build", folder);
  mkdirSync(outDir, { recursive: true });
  const args = ["-std=c11", "-O2", "-g", "-Wall", "-Wextra", "-fPIC", "-shared", "-pthread"];
  // Named by its file name (DT_SONAME), as real libraries are: the fake core finds the fake CUDA
  // runtime already loaded by that name (dlopen RTLD_NOLOAD), like a real libcudart.
  args.push(`-Wl,-soname,${file}`);
  args.push("-o", join(outDir, file), ...sources.map((s) => join(root, s)));
  const r = spawnSync(process.env.CC ?? "cc", args, { stdio: "inherit" });
  if (r.status !== 0) {
    console.error(`${label}: compile failed`);
    process.exit(r.status ?? 1);
  }
}
