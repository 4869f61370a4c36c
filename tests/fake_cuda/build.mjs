// Builds the fake CUDA runtime used by the tests:
//   cc -std=c11 -O2 -g -fPIC -shared -pthread -o .build/fake_cuda/libcudart.so tests/fake_cuda/fake_cuda.c
// Plain Node ESM with node: built-ins only. Exits non-zero when the compile fails.
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");
const outDir = join(root, ".build", "fake_cuda");
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
  join(outDir, "libcudart.so"),
  join(here, "fake_cuda.c"),
];
const r = spawnSync(process.env.CC ?? "cc", args, { stdio: "inherit" });
if (r.status !== 0) {
  console.error("fake cuda: compile failed");
  process.exit(r.status ?? 1);
}
