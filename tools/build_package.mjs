// The package's build (`npm run build`; `npm pack` runs it as `prepack`): dist/ afresh, with the
// JavaScript and `.d.ts` tsc emits for the four entries — mod.ts (the binding), serve.ts, grpc.ts
// and openai.ts (the front ends) — and what they import from src/, serving/ and ffi/
// (tsconfig.build.json), and the C sources Bun compiles at run time (ffi/native/c: the ring
// producer, the response allocator, the response reader, the blocking call and the batch
// deleter's comparator), which the built modules find beside them as the sources do.
import { execFileSync } from "node:child_process";
import { cpSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
rmSync(dist, { recursive: true, force: true });
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], {
  stdio: "inherit",
  cwd: root,
});
cpSync(join(root, "ffi", "native", "c"), join(dist, "ffi", "native", "c"), {
  recursive: true,
  filter: (path) => statSync(path).isDirectory() || /\.[ch]$/.test(path),
});
