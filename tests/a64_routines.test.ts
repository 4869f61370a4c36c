/**
 * The A64 placing allocator, batch deleter's comparator and request submitter
 * (ffi/native/a64/placing.ts, delete_each.ts, submit.ts): their bytes against
 * tests/thunk_driver/aarch64_{placing,delete_each,submit}_reference.S as the GNU assembler makes
 * them, and a run of each under qemu-aarch64 (tests/thunk_driver/aarch64_routines_driver.c,
 * cross-compiled static, with C stand-ins for Triton's functions): every path of the placing
 * alloc and release, the comparator through libc lfind, the submitter through libc bsearch with
 * every call made and each call failing in turn. Skips with the reason where the aarch64
 * assembler, cross compiler or qemu is absent.
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "./support/test.ts";
import {
  assembleA64,
  CROSS,
  driverFile,
  noAssembler,
  noEmulation,
  words,
} from "./support/aarch64_cross.ts";
import { BufferUserp } from "../ffi/allocator.ts";
import { generateDeleteEachA64 } from "../ffi/native/a64/delete_each.ts";
import { generatePlacingA64 } from "../ffi/native/a64/placing.ts";
import { generateSubmitA64 } from "../ffi/native/a64/submit.ts";
import { RequestLayout } from "../ffi/request_record.ts";

/** The targets tests/thunk_driver/aarch64_placing_reference.S was written for. */
const PLACING_TARGETS = { jsAlloc: 0x00007f0000001000n, release: 0x00007f0000002000n };

for (
  const [name, generate] of [
    ["placing", () => generatePlacingA64(PLACING_TARGETS).code],
    ["delete_each", generateDeleteEachA64],
    ["submit", generateSubmitA64],
  ] as const
) {
  test(`a64 ${name}: the generated code equals the GNU assembler's reference`, (t) => {
    const why = noAssembler();
    if (why) return t.skip(why);
    assert.deepEqual(words(generate()), words(assembleA64(`aarch64_${name}_reference.S`)));
  });
}

test("a64 placing: entry points, and the targets in the table after the code", () => {
  const { code, entries } = generatePlacingA64(PLACING_TARGETS);
  assert.deepEqual(entries, { alloc: 0, release: 128 });
  const view = new DataView(code.buffer);
  assert.equal(view.getBigUint64(code.length - 16, true), PLACING_TARGETS.jsAlloc);
  assert.equal(view.getBigUint64(code.length - 8, true), PLACING_TARGETS.release);
});

test("a64 routines: the driver's layout constants are the binding's", () => {
  const source = readFileSync(driverFile("aarch64_routines_driver.c"), "utf8");
  const define = (name: string) => Number(new RegExp(`#define ${name} (\\w+)`).exec(source)?.[1]);
  assert.equal(define("REGION"), BufferUserp.REGION);
  for (
    const field of [
      "SERVER",
      "MODEL",
      "VERSION",
      "ALLOCATOR",
      "ALLOCATOR_USERP",
      "RESPONSE_FN",
      "RELEASE_FN",
      "USERP",
      "INPUT_COUNT",
      "REQUEST",
      "ERROR",
      "INPUTS",
      "INPUT_SIZE",
    ] as const
  ) {
    assert.equal(define(`R_${field}`), RequestLayout[field], field);
  }
});

test("a64 routines: under qemu-aarch64, placing, delete_each and submit on every path", (t) => {
  const why = noEmulation();
  if (why) return t.skip(why);
  const dir = mkdtempSync(join(tmpdir(), "a64-routines-"));
  try {
    const driver = join(dir, "aarch64_routines_driver");
    const cc = spawnSync(CROSS.gcc, [
      "-O2",
      "-static",
      "-no-pie",
      "-Wall",
      "-Werror",
      "-o",
      driver,
      driverFile("aarch64_routines_driver.c"),
    ], { encoding: "utf8" });
    assert.equal(cc.status, 0, cc.stderr);
    const qemu = (args: string[]) =>
      spawnSync(CROSS.qemu, ["-L", CROSS.sysroot, driver, ...args], {
        encoding: "utf8",
        timeout: 60_000,
      });
    const first = qemu(["addresses"]);
    assert.equal(first.status, 0, first.stderr);
    const a = Object.fromEntries(first.stdout.trim().split("\n").map((l) => l.split(" ")));
    const placing = generatePlacingA64({ jsAlloc: BigInt(a.jsAlloc), release: BigInt(a.release) });
    writeFileSync(join(dir, "placing.bin"), placing.code);
    writeFileSync(join(dir, "delete_each.bin"), generateDeleteEachA64());
    writeFileSync(join(dir, "submit.bin"), generateSubmitA64());
    const run = qemu(["run", dir, String(placing.entries.release)]);
    // A static, non-PIE driver: the addresses the code was made for are the ones it runs with.
    assert.ok(run.stdout.startsWith(first.stdout), run.stdout);
    assert.equal(run.status, 0, `exit ${run.status ?? run.signal}: ${run.stdout}${run.stderr}`);
    assert.deepEqual(
      run.stdout.slice(first.stdout.length).trim().split("\n"),
      ["ok placing", "ok delete_each", "ok submit"],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
