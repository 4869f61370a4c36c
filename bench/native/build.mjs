// Builds the C reference client of `npm run bench` into .build/bench/native_client: writes the C
// API declarations generated from ffi/symbols.ts (tools/c_api.mjs), asks the binding for the
// constants of its C sources (tools/native_defines.ts: the ring layout, the placement table ...),
// and compiles bench/native with the binding's own ring producers and allocator (ffi/native/c), the
// signatures checked against the generated declarations (-DTRITONFFI_C_API_CHECK), warnings as
// errors. Plain Node ESM; `node bench/native/build.mjs` or imported (bench/run.mjs, the tests).
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { writeCHeader } from "../../tools/c_api.mjs";
import { runtimeCommand } from "../../tests/runtime_command.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Builds the client; returns its path. Throws with the compiler's output when a step fails. */
export function buildNativeClient() {
  const header = writeCHeader();
  const [cmd, args] = runtimeCommand(root, "node", "tools/native_defines.ts");
  const d = spawnSync(cmd, args, { cwd: root, encoding: "utf8" });
  if (d.status !== 0) throw new Error(`native client: ${cmd} ${args.join(" ")}: ${d.stderr}`);
  const out = join(root, ".build", "bench", "native_client");
  mkdirSync(dirname(out), { recursive: true });
  const cc = process.env.CC ?? "cc";
  const r = spawnSync(cc, [
    "-std=c11",
    "-O2",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-pthread",
    "-I",
    dirname(header),
    "-DTRITONFFI_C_API_CHECK",
    ...JSON.parse(d.stdout),
    "-o",
    out,
    "bench/native/client.c",
    "bench/native/triton.c",
    "ffi/native/c/ring_producer.c",
    "ffi/native/c/allocator.c",
    "-ldl",
  ], { cwd: root, encoding: "utf8" });
  if (r.status !== 0) {
    throw new Error(`native client: ${cc} failed:\n${r.stderr}${r.error?.message ?? ""}`);
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    console.log(`native client: built ${buildNativeClient()}`);
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  }
}
