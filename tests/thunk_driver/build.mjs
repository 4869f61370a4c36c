// Builds the test driver for the native callbacks (tests/thunks.test.ts):
//   cc -std=c11 -O2 -g -fPIC -shared -pthread -o .build/thunk_driver/libthunk_driver.so \
//      tests/thunk_driver/driver.c
// Plain Node ESM with node: built-ins only. Exits non-zero when the compile fails.
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");
const outDir = join(root, ".build", "thunk_driver");
mkdirSync(outDir, { recursive: true });
const args = [
  "-std=c11",
  "-O2",
  "-g",
  "-Wall",
  "-Wextra",
  "-fPIC",
  "-shared",
  "-pthread",
  "-o",
  join(outDir, "libthunk_driver.so"),
  join(here, "driver.c"),
];
const r = spawnSync(process.env.CC ?? "cc", args, { stdio: "inherit" });
if (r.status !== 0) {
  console.error("thunk driver: compile failed");
  process.exit(r.status ?? 1);
}
