// The commands that run TypeScript on Deno, Bun or Node with the toolchain npm installed
// (node_modules/.bin: the pinned deno, bun and node; never the machine's own node), with the
// permissions the binding needs on Deno. Used by `npm test`, `npm run bench` and `npm run demo`.
// Plain Node ESM, so it runs under any of the three.
import { join } from "node:path";

/** The permissions the binding needs on Deno (the tests add `--allow-run`, as some start a child
 * process, and `--allow-net` for the serve tests). */
export const DENO_PERMISSIONS = ["--allow-ffi", "--allow-env", "--allow-read", "--allow-write"];

/**
 * The pinned binary of `name` ("deno", "bun" or "node") under node_modules/.bin.
 * @param {string} root the project root
 * @param {string} name
 */
export function toolchainBin(root, name) {
  return join(root, "node_modules", ".bin", name);
}

/**
 * The command that runs one TypeScript entry point.
 * @param {string} root the project root
 * @param {string} runtime "deno", "bun" or "node"
 * @param {string} script the entry point, relative to `root`
 * @param {{ deno?: string[], node?: string[] }} [extra] more flags, placed before the script
 * @returns {[string, string[]]} the command and its arguments
 */
export function runtimeCommand(root, runtime, script, extra = {}) {
  const bin = toolchainBin(root, runtime);
  switch (runtime) {
    case "deno":
      return [bin, ["run", ...DENO_PERMISSIONS, ...(extra.deno ?? []), script]];
    case "bun":
      return [bin, [script]];
    case "node":
      // Node 22.18+ strips the types itself: no loader.
      return [bin, [...(extra.node ?? []), script]];
  }
  throw new Error(`unknown runtime "${runtime}": deno, bun or node`);
}

/**
 * The command that runs the test files (or folders) `paths` with `runtime`'s own test runner
 * (`deno test`, `bun test`, `node --test`), its tests narrowed to names matching `filter` when
 * given (each runner's own flag: `--filter`, `-t`, `--test-name-pattern`).
 * @param {string} root the project root
 * @param {string} runtime "deno", "bun" or "node"
 * @param {string[]} paths test files or folders, relative to `root`
 * @param {string} [filter] a test-name pattern
 * @returns {[string, string[]]} the command and its arguments
 */
export function testCommand(root, runtime, paths, filter) {
  const bin = toolchainBin(root, runtime);
  switch (runtime) {
    case "deno":
      return [bin, [
        "test",
        ...DENO_PERMISSIONS,
        "--allow-run",
        // the serve tests listen on 127.0.0.1 and want request.signal to abort only when a
        // client leaves
        "--allow-net",
        "--unstable-no-legacy-abort",
        // serve()'s workers listen with Deno.serve's reusePort, which is behind this flag
        "--unstable-net",
        "--v8-flags=--expose-gc",
        ...(filter ? ["--filter", filter] : []),
        ...paths,
      ]];
    case "bun":
      // Bun's default per-test timeout is 5 s (bunfig.toml cannot change it); starting a real
      // core's server takes seconds: 60 s, as node's --test-timeout below.
      return [bin, ["test", "--timeout", "60000", ...(filter ? ["-t", filter] : []), ...paths]];
    case "node":
      return [bin, [
        "--expose-gc",
        "--test",
        "--test-reporter=spec",
        "--test-concurrency=1",
        "--test-timeout=60000",
        ...(filter ? [`--test-name-pattern=${filter}`] : []),
        // Node 21+ takes glob patterns, and runs a folder as if it were a file
        // (MODULE_NOT_FOUND; nodejs/node#64555): a folder becomes its *.test.ts files.
        ...paths.map((p) => (p.endsWith("/") ? `${p}**/*.test.ts` : p)),
      ]];
  }
  throw new Error(`unknown runtime "${runtime}": deno, bun or node`);
}
