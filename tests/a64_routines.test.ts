/**
 * The A64 placing allocator, batch deleter's comparator, request submitter, response reader and
 * Bun's ring atomics (ffi/native/a64/placing.ts, delete_each.ts, submit.ts, reader.ts,
 * atomics.ts): their bytes against
 * tests/thunk_driver/aarch64_{placing,delete_each,submit,reader,atomics}_reference.S as the GNU
 * assembler makes them (the atomics run under qemu in thunks.test.ts's ring stress on Bun), and a run of each under qemu-aarch64 (tests/thunk_driver/aarch64_routines_driver.c,
 * cross-compiled static, with C stand-ins for Triton's functions): every path of the placing
 * alloc and release, the comparator through libc lfind, the submitter through libc bsearch with
 * every call made and each call failing in turn, the reader through bsearch on a response with
 * copied, GPU, too large and unterminated outputs and every parameter type, a response error, more
 * outputs and parameters than the record holds, and each call failing in turn. Skips with the reason where the aarch64
 * assembler, cross compiler or qemu is absent.
 *
 * @module
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "./support/test.ts";
import {
  assembleA64,
  buildEmulatedDriver,
  driverFile,
  noAssembler,
  noEmulation,
  words,
} from "./support/aarch64_cross.ts";
import { BufferUserp } from "../ffi/allocator.ts";
import { generateAtomicsA64 } from "../ffi/native/a64/atomics.ts";
import { generateDeleteEachA64 } from "../ffi/native/a64/delete_each.ts";
import { generatePlacingA64 } from "../ffi/native/a64/placing.ts";
import { generateReaderA64 } from "../ffi/native/a64/reader.ts";
import type { ReaderTargets } from "../ffi/native/routines.ts";
import { generateSubmitA64 } from "../ffi/native/a64/submit.ts";
import { RequestLayout } from "../ffi/native/request_record.ts";
import {
  OutputRecord,
  ParamRecord,
  RECORD_BYTES,
  RecordLayout,
} from "../ffi/native/response_record.ts";

/** The targets tests/thunk_driver/aarch64_placing_reference.S was written for. */
const PLACING_TARGETS = { jsAlloc: 0x00007f0000001000n, release: 0x00007f0000002000n };

/** The targets tests/thunk_driver/aarch64_reader_reference.S was written for. */
const READER_TARGETS: ReaderTargets = {
  responseError: 0x00007f0000001000n,
  outputCount: 0x00007f0000002000n,
  output: 0x00007f0000003000n,
  model: 0x00007f0000004000n,
  id: 0x00007f0000005000n,
  parameterCount: 0x00007f0000006000n,
  parameter: 0x00007f0000007000n,
  memcpy: 0x00007f0000008000n,
  memccpy: 0x00007f0000009000n,
};

/** The reader's targets by their names in the driver's address list. */
function readerTargets(a: Record<string, string>): ReaderTargets {
  const names = Object.keys(READER_TARGETS) as (keyof ReaderTargets)[];
  return Object.fromEntries(names.map((n) => [n, BigInt(a[n])])) as unknown as ReaderTargets;
}

for (
  const [name, generate] of [
    ["placing", () => generatePlacingA64(PLACING_TARGETS).code],
    ["delete_each", generateDeleteEachA64],
    ["submit", generateSubmitA64],
    ["reader", () => generateReaderA64(READER_TARGETS)],
    ["atomics", () => generateAtomicsA64().code],
  ] as const
) {
  test(`a64 ${name}: the generated code equals the GNU assembler's reference`, (t) => {
    const why = noAssembler();
    if (why) return t.skip(why);
    assert.deepEqual(words(generate()), words(assembleA64(`aarch64_${name}_reference.S`)));
  });
}

test("a64 atomics: entry points", () => {
  assert.deepEqual(generateAtomicsA64().entries, {
    fetchIncrement: 0,
    exchange: 28,
    loadAcquire: 52,
  });
});

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
  for (const [k, v] of Object.entries(RecordLayout)) {
    if (!k.endsWith("_CAP")) assert.equal(define(`RR_${k}`), v, k);
  }
  for (const [k, v] of Object.entries(OutputRecord)) assert.equal(define(`O_${k}`), v, k);
  for (const [k, v] of Object.entries(ParamRecord)) assert.equal(define(`P_${k}`), v, k);
  assert.equal(define("RECORD_BYTES"), RECORD_BYTES);
});

test("a64 routines: under qemu-aarch64, placing, delete_each, submit and reader on every path", (t) => {
  const why = noEmulation();
  if (why) return t.skip(why);
  const dir = mkdtempSync(join(tmpdir(), "a64-routines-"));
  try {
    const driver = buildEmulatedDriver(
      "aarch64_routines_driver.c",
      join(dir, "aarch64_routines_driver"),
      [],
      60_000,
    );
    const a = driver.addresses;
    const placing = generatePlacingA64({ jsAlloc: BigInt(a.jsAlloc), release: BigInt(a.release) });
    writeFileSync(join(dir, "placing.bin"), placing.code);
    writeFileSync(join(dir, "delete_each.bin"), generateDeleteEachA64());
    writeFileSync(join(dir, "submit.bin"), generateSubmitA64());
    writeFileSync(join(dir, "reader.bin"), generateReaderA64(readerTargets(a)));
    const run = driver.run(["run", dir, String(placing.entries.release)]);
    // A static, non-PIE driver: the addresses the code was made for are the ones it runs with.
    assert.ok(run.stdout.startsWith(driver.addressesText), run.stdout);
    assert.equal(run.status, 0, `exit ${run.status ?? run.signal}: ${run.stdout}${run.stderr}`);
    assert.deepEqual(
      run.stdout.slice(driver.addressesText.length).trim().split("\n"),
      ["ok placing", "ok delete_each", "ok submit", "ok reader"],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
