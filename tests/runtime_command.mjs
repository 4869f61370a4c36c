// The command that runs a TypeScript entry point on Deno, Bun or Node with the toolchain npm
// installed (node_modules/.bin; Node through the tsx loader), with the permissions the binding
// needs on Deno. Used by `npm test`, `npm run bench` and `npm run demo`. Plain Node ESM.
import { join } from "node:path";
import process from "node:process";

/**
 * @param {string} root the project root
 * @param {string} runtime "deno", "bun" or "node"
 * @param {string} script the entry point, relative to `root`
 * @param {{ deno?: string[], node?: string[] }} [extra] more flags, placed before the script
 * @returns {[string, string[]]} the command and its arguments
 */
export function runtimeCommand(root, runtime, script, extra = {}) {
  const bin = (name) => join(root, "node_modules", ".bin", name);
  switch (runtime) {
    case "deno":
      return [bin("deno"), [
        "run",
        "--allow-ffi",
        "--allow-env",
        "--allow-read",
        "--allow-write",
        ...(extra.deno ?? []),
        script,
      ]];
    case "bun":
      return [bin("bun"), [script]];
    case "node":
      return [process.execPath, [...(extra.node ?? []), "--import", "tsx", script]];
  }
  throw new Error(`unknown runtime "${runtime}": deno, bun or node`);
}
