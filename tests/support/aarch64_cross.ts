/**
 * The aarch64 cross tools the A64 tests use where the machine has them: the GNU assembler
 * (binutils-aarch64-linux-gnu), the cross compiler (gcc-aarch64-linux-gnu with
 * libc6-dev-arm64-cross) and user-mode emulation (qemu-user-static). Each helper says why a
 * test must skip when a tool is absent.
 *
 * @module
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

/** The assembler, objcopy, compiler and emulator (each overridable by an environment variable). */
export const CROSS = {
  as: process.env.A64_AS ?? "aarch64-linux-gnu-as",
  objcopy: process.env.A64_OBJCOPY ?? "aarch64-linux-gnu-objcopy",
  gcc: process.env.A64_GCC ?? "aarch64-linux-gnu-gcc",
  qemu: process.env.A64_QEMU ?? "qemu-aarch64-static",
  sysroot: process.env.A64_SYSROOT ?? "/usr/aarch64-linux-gnu",
};

/** Whether `tool --version` runs. */
export function hasTool(tool: string): boolean {
  const r = spawnSync(tool, ["--version"], { stdio: "ignore" });
  return !r.error && r.status === 0;
}

/** Why the byte-for-byte comparisons skip, or undefined when the assembler and objcopy run. */
export function noAssembler(): string | undefined {
  for (const tool of [CROSS.as, CROSS.objcopy]) {
    if (!hasTool(tool)) return `no ${tool} (binutils-aarch64-linux-gnu)`;
  }
  return undefined;
}

/** Why the emulated runs skip, or undefined when the compiler, its static libc and qemu are
 * there (the drivers are static executables: their addresses are fixed at link time). */
export function noEmulation(): string | undefined {
  if (!hasTool(CROSS.gcc)) return `no ${CROSS.gcc} (gcc-aarch64-linux-gnu)`;
  if (!existsSync(join(CROSS.sysroot, "lib", "libc.a"))) {
    return `no ${join(CROSS.sysroot, "lib", "libc.a")} (libc6-dev-arm64-cross)`;
  }
  if (!hasTool(CROSS.qemu)) return `no ${CROSS.qemu} (qemu-user-static)`;
  return undefined;
}

/** Absolute path of a file in tests/thunk_driver. */
export function driverFile(name: string): string {
  return decodeURIComponent(new URL(`../thunk_driver/${name}`, import.meta.url).pathname);
}

/**
 * The .text bytes of tests/thunk_driver/`name`, assembled by the aarch64 GNU assembler.
 * @throws {Error} when as or objcopy fails (with its output).
 */
export function assembleA64(name: string): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), "a64-as-"));
  try {
    const object = join(dir, "out.o");
    const bin = join(dir, "out.bin");
    const as = spawnSync(CROSS.as, ["-o", object, driverFile(name)], { encoding: "utf8" });
    if (as.status !== 0) throw new Error(`${CROSS.as} ${name}: ${as.stderr}`);
    const copy = spawnSync(CROSS.objcopy, ["-O", "binary", "--only-section=.text", object, bin], {
      encoding: "utf8",
    });
    if (copy.status !== 0) throw new Error(`${CROSS.objcopy} ${name}: ${copy.stderr}`);
    return new Uint8Array(readFileSync(bin));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The instruction words of `bytes` (little-endian), as 8-digit hex for readable diffs. */
export function words(bytes: Uint8Array): string[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: string[] = [];
  for (let i = 0; i + 4 <= bytes.length; i += 4) {
    out.push(view.getUint32(i, true).toString(16).padStart(8, "0"));
  }
  return out;
}

/** A cross-built static driver (tests/thunk_driver/`source`) and the way to run it under qemu. */
export interface EmulatedDriver {
  /** Runs the driver with `args` under qemu-aarch64, output as text. */
  run(args: string[]): SpawnSyncReturns<string>;
  /** The driver's `addresses` output: one `name value` line each, in its order. */
  readonly addresses: Record<string, string>;
  /** That output as printed, which every later run prints first. */
  readonly addressesText: string;
}

/**
 * Compiles tests/thunk_driver/`source` static and non-PIE with the cross compiler into
 * `output` (so the addresses it prints are the ones it runs with), then runs its `addresses`
 * command under qemu, each run bounded by `timeoutMs`.
 * @throws {Error} when the compile or the first run fails (with its output).
 */
export function buildEmulatedDriver(
  source: string,
  output: string,
  flags: string[],
  timeoutMs: number,
): EmulatedDriver {
  const cc = spawnSync(CROSS.gcc, [
    "-O2",
    "-static",
    "-no-pie",
    "-Wall",
    "-Werror",
    ...flags,
    "-o",
    output,
    driverFile(source),
  ], { encoding: "utf8" });
  if (cc.status !== 0) throw new Error(`${CROSS.gcc} ${source}: ${cc.stderr}`);
  const run = (args: string[]) =>
    spawnSync(CROSS.qemu, ["-L", CROSS.sysroot, output, ...args], {
      encoding: "utf8",
      timeout: timeoutMs,
    });
  const first = run(["addresses"]);
  if (first.status !== 0) throw new Error(`${source} addresses: ${first.stderr}`);
  return { run, addresses: driverAddresses(first.stdout), addressesText: first.stdout };
}

/** The leading `name value` lines of a driver's output (a value in hex or decimal). */
export function driverAddresses(stdout: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of stdout.split("\n")) {
    const m = /^(\w+) (0x[0-9a-f]+|\d+)$/.exec(line);
    if (!m) break;
    out[m[1]] = m[2];
  }
  return out;
}
