// Builds the fake Triton core used by the tests:
//   node tools/c_api.mjs   (the C API declarations, from ffi/symbols.ts, into .build/c_api)
//   cc -std=c11 -O2 -g -fPIC -shared -pthread -I .build/c_api \
//      -o .build/fake_core/libtritonserver.so tests/fake_core/*.c
//
// Plain Node ESM (only node: built-ins), so it also runs under Deno
// (deno run --allow-read --allow-write --allow-run --allow-env) and Bun.
// Usage: node tests/fake_core/build.mjs [--force]
// Environment: CC overrides the compiler (default "cc"); TEST_BUILD_DIR the folder the library goes
// under (default .build, relative to the repository root): `CC=aarch64-linux-gnu-gcc
// TEST_BUILD_DIR=.build/aarch64` builds .build/aarch64/fake_core/libtritonserver.so for aarch64
// (tests/aarch64/run.mjs). The C API header is the same for every target (.build/c_api).
// Skips the compile when the library is newer than every source file
// unless --force is given. Exits non-zero when the compile fails.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { writeCHeader } from "../../tools/c_api.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");
const outDir = resolve(root, process.env.TEST_BUILD_DIR || ".build", "fake_core");
const outLib = join(outDir, "libtritonserver.so");
const force = process.argv.includes("--force");

// The declarations every definition of the fake core is compiled against; fails (listing each
// break) when ffi/symbols.ts breaks its mapping conventions.
let header;
try {
  header = writeCHeader();
} catch (e) {
  console.error(`fake core: ${e.message}`);
  process.exit(1);
}

const entries = readdirSync(here).sort();
const sources = entries.filter((f) => f.endsWith(".c"));
const inputs = [
  ...entries.filter((f) => f.endsWith(".c") || f.endsWith(".h")).map((f) => join(here, f)),
  header,
  fileURLToPath(import.meta.url), // the flags below
];
if (sources.length === 0) {
  console.error(`fake core: no C sources found in ${here}`);
  process.exit(1);
}

function upToDate() {
  if (!existsSync(outLib)) return false;
  const built = statSync(outLib).mtimeMs;
  return inputs.every((f) => statSync(f).mtimeMs <= built);
}

if (!force && upToDate()) {
  console.log(`fake core: ${relative(root, outLib)} is up to date`);
  process.exit(0);
}

mkdirSync(outDir, { recursive: true });

const cc = process.env.CC || "cc";
const args = [
  "-std=c11",
  "-O2",
  "-g",
  "-fPIC",
  "-shared",
  "-pthread",
  "-Wall",
  "-Wextra",
  "-Wmissing-prototypes",
  "-Werror=missing-prototypes", // a definition the generated declarations do not list
  "-Werror=implicit-function-declaration",
  "-Wl,--no-undefined", // every function of the table is defined (types.c)
  "-I",
  relative(root, dirname(header)),
  "-o",
  relative(root, outLib),
  ...sources.map((f) => relative(root, join(here, f))),
  "-ldl", // dlsym (gpu.c); part of libc since glibc 2.34
];
// The whole command line (some 1,500 characters) only where it failed: `npm run demo` prints what
// this prints, before the demo's own lines.
console.log(`fake core: compiling ${sources.length} files of tests/fake_core with ${cc}`);
const res = spawnSync(cc, args, { cwd: root, stdio: "inherit" });
if (res.error) {
  console.error(
    res.error.code === "ENOENT"
      ? `fake core: no C compiler: \`${cc}\` is not on PATH. The fake core is C: install one ` +
        "(Debian: apt-get install gcc) or name it with CC=…; or run on a real core with " +
        "TRITONSERVER_LIB=/path/to/libtritonserver.so"
      : `fake core: could not run ${cc}: ${res.error.message}`,
  );
  process.exit(1);
}
if (res.status !== 0) {
  console.error(`fake core: ${cc} ${args.join(" ")}`);
  console.error(`fake core: compile failed (exit status ${res.status ?? res.signal})`);
  process.exit(res.status || 1);
}
console.log(`fake core: built ${relative(root, outLib)}`);
