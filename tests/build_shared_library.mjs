// Compiles test-only C sources into a shared library under .build/ with the system `cc` ($CC
// overrides it): `cc -std=c11 -O2 -g -Wall -Wextra -fPIC -shared -pthread -Wl,-soname,FILE -o OUT
// SOURCES`. TEST_BUILD_DIR names another folder than .build (relative to the repository root) for
// a cross build: `CC=aarch64-linux-gnu-gcc TEST_BUILD_DIR=.build/aarch64` (tests/aarch64/run.mjs).
// Plain Node ESM with node: built-ins only, so Deno and Bun run it too.
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Builds `<buildDir>/<folder>/<file>` from `sources` (paths relative to the repository root); exits
 * the process with cc's status when the compile fails.
 * @param {{ cc?: string, buildDir?: string }} [options] the compiler (default `$CC`, else `cc`)
 *   and the folder (default `$TEST_BUILD_DIR`, else `.build`; relative to the repository root)
 */
export function buildSharedLibrary(label, folder, file, sources, options = {}) {
  const buildDir = options.buildDir ?? (process.env.TEST_BUILD_DIR || ".build");
  const outDir = resolve(root, buildDir, folder);
  mkdirSync(outDir, { recursive: true });
  const args = ["-std=c11", "-O2", "-g", "-Wall", "-Wextra", "-fPIC", "-shared", "-pthread"];
  // Named by its file name (DT_SONAME), as real libraries are: the fake core finds the fake CUDA
  // runtime already loaded by that name (dlopen RTLD_NOLOAD), like a real libcudart.
  args.push(`-Wl,-soname,${file}`);
  args.push("-o", join(outDir, file), ...sources.map((s) => join(root, s)));
  const r = spawnSync(options.cc ?? process.env.CC ?? "cc", args, { stdio: "inherit" });
  if (r.status !== 0) {
    console.error(`${label}: compile failed`);
    process.exit(r.status ?? 1);
  }
}
