// Node's koffi finds its native module next to itself (node_modules/@koromix/koffi-<platform>-
// <arch>), and `npm ci` on x86-64 installs only the x64 one. Under emulation, Node (arm64) loads
// the `koffi` that tests/aarch64/install.mjs put under .build/aarch64/node_modules instead, beside
// its @koromix/koffi-linux-arm64: `node --import ./tests/aarch64/koffi_hook.mjs ...`
// ($TRITONFFI_AARCH64_MODULES names another node_modules folder). Every other package still
// resolves from the project's node_modules (they are plain JavaScript).
import { registerHooks } from "node:module";
import { join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";

const modules = process.env.TRITONFFI_AARCH64_MODULES ||
  resolve(fileURLToPath(import.meta.url), "..", "..", "..", ".build", "aarch64", "node_modules");
const koffi = pathToFileURL(join(modules, "koffi", "index.js")).href;

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === "koffi") return { url: koffi, format: "module", shortCircuit: true };
    return nextResolve(specifier, context);
  },
});
