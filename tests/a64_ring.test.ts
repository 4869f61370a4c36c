/**
 * The A64 ring producers, allocator fast path and instruction-cache flush
 * (ffi/native/a64/ring.ts, flush.ts): their bytes against tests/thunk_driver/aarch64_ring_reference.S
 * and aarch64_flush_reference.S as the GNU assembler makes them, and a real run under
 * qemu-aarch64: tests/thunk_driver/aarch64_driver.c, cross-compiled static, places the generated
 * code, pushes 4 × 20000 records from four threads into a 16-slot ring (full most of the time:
 * producers yield; the consumer sleeps on the eventfd and is woken through libc write) and into a
 * 4096-slot one (claims race), checks each record arrives once, in full and in its producer's
 * order, then drives every allocator entry point. Emulation runs the threads in parallel but on
 * the host's memory order: it finds lost or doubled claims and wrong fields, not a missing
 * barrier. Skips with the reason
 * where the aarch64 assembler, cross compiler or qemu is absent.
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
  driverAddresses,
  driverFile,
  noAssembler,
  noEmulation,
  words,
} from "./support/aarch64_cross.ts";
import { generateFlushA64 } from "../ffi/native/a64/flush.ts";
import { generateRingA64 } from "../ffi/native/a64/ring.ts";
import type { ThunkTargets } from "../ffi/native/routines.ts";
import { RingLayout } from "../ffi/native/ring_layout.ts";
import { MALLOC_FAILED } from "../ffi/native/routines.ts";

/** The targets tests/thunk_driver/aarch64_ring_reference.S was written for. */
const REFERENCE_TARGETS: ThunkTargets = {
  ring: 0x0000111122223300n,
  capacity: 1024,
  eventfd: 7,
  schedYield: 0x00007f0000001000n,
  write: 0x00007f0000002000n,
  malloc: 0x00007f0000003000n,
  free: 0x00007f0000004000n,
  errorNew: 0x00007f0000005000n,
  setMemoryType: 0x00007f0000006000n,
  setMemoryTypeId: 0x00007f0000007000n,
  jsAlloc: 0x00007f0000008000n,
  jsRelease: 0x00007f0000009000n,
  jsQuery: 0x00007f000000a000n,
  jsBufferAttributes: 0x00007f000000b000n,
};

test("a64 ring: the generated code equals the GNU assembler's reference", (t) => {
  const why = noAssembler();
  if (why) return t.skip(why);
  const { code, entries } = generateRingA64(REFERENCE_TARGETS);
  assert.deepEqual(words(code), words(assembleA64("aarch64_ring_reference.S")));
  assert.equal(code.length, 634);
  assert.deepEqual(entries, {
    responseComplete: 0,
    requestRelease: 12,
    alloc: 216,
    release: 328,
    query: 380,
    bufferAttributes: 412,
  });
});

test("a64 flush: the generated code equals the GNU assembler's reference", (t) => {
  const why = noAssembler();
  if (why) return t.skip(why);
  const { code, entries } = generateFlushA64();
  assert.deepEqual(words(code), words(assembleA64("aarch64_flush_reference.S")));
  assert.deepEqual(entries, { flush: 0 });
});

test("a64 ring: addresses sit in the table after the code, never in the instructions", () => {
  const { code } = generateRingA64(REFERENCE_TARGETS);
  const view = new DataView(code.buffer);
  const table = code.length - (MALLOC_FAILED.length + 1) - 13 * 8; // after the code, 8-aligned
  assert.equal(table % 8, 0);
  const values = [];
  for (let at = table; at < table + 13 * 8; at += 8) values.push(view.getBigUint64(at, true));
  assert.deepEqual(values.slice(0, 4), [
    REFERENCE_TARGETS.ring,
    0x7f0000001000n,
    0x7f0000002000n,
    7n,
  ]);
  // no MOVZ/MOVK builds an address: every MOVZ's immediate is small, and there is no MOVK
  for (let at = 0; at < table; at += 4) {
    const word = view.getUint32(at, true);
    assert.notEqual(word & 0x7f800000, 0x72800000, `MOVK at ${at}`);
    if ((word & 0x7f800000) === 0x52800000) assert.ok(((word >> 5) & 0xffff) <= 8, `MOVZ at ${at}`);
  }
  const message = new TextDecoder().decode(code.subarray(table + 13 * 8, code.length - 1));
  assert.equal(message, "malloc of an output buffer failed");
});

test("a64 ring: a capacity that is not a power of two in [2, 2^30] is refused", () => {
  for (const capacity of [0, 1, 3, 1000, 2 ** 31]) {
    assert.throws(
      () => generateRingA64({ ...REFERENCE_TARGETS, capacity }),
      /is not a power of two/,
    );
  }
});

test("a64 ring: the driver's layout constants are ring_layout.ts's", () => {
  const source = readFileSync(driverFile("aarch64_driver.c"), "utf8");
  const define = (name: string) => Number(new RegExp(`#define ${name} (\\d+)`).exec(source)?.[1]);
  assert.deepEqual(
    {
      TAIL: define("TAIL"),
      SLEEPING: define("SLEEPING"),
      SLOTS: define("SLOTS"),
      SLOT_SIZE: define("SLOT_SIZE"),
      SLOT_SEQ: define("SLOT_SEQ"),
      SLOT_KIND: define("SLOT_KIND"),
      SLOT_FLAGS: define("SLOT_FLAGS"),
      SLOT_OBJECT: define("SLOT_OBJECT"),
      SLOT_USERP: define("SLOT_USERP"),
    },
    { ...RingLayout },
  );
});

/** "name value" lines up to the first that is not one. */
/** Builds the driver for a ring of `capacity` slots, runs the code generated for its addresses,
 * and returns the result line's numbers. */
function runDriver(dir: string, capacity: number): Record<string, number> {
  const driver = buildEmulatedDriver(
    "aarch64_driver.c",
    join(dir, `aarch64_driver_${capacity}`),
    ["-pthread", `-DCAPACITY=${capacity}`],
    150_000,
  );
  const a = driver.addresses;
  const big = (name: string) => BigInt(a[name]);
  const { code, entries: e } = generateRingA64({
    ring: big("ring"),
    capacity: Number(a.capacity),
    eventfd: Number(a.eventfd),
    write: big("write"),
    schedYield: big("schedYield"),
    malloc: big("malloc"),
    free: big("free"),
    errorNew: big("errorNew"),
    setMemoryType: big("setMemoryType"),
    setMemoryTypeId: big("setMemoryTypeId"),
    jsAlloc: big("jsAlloc"),
    jsRelease: big("jsRelease"),
    jsQuery: big("jsQuery"),
    jsBufferAttributes: big("jsBufferAttributes"),
  });
  const ring = join(dir, `ring_${capacity}.bin`);
  const flush = join(dir, "flush.bin");
  writeFileSync(ring, code);
  writeFileSync(flush, generateFlushA64().code);
  const offsets = [e.responseComplete, e.requestRelease, e.alloc, e.release, e.query];
  const run = driver.run(["run", ring, flush, ...[...offsets, e.bufferAttributes].map(String)]);
  // A static, non-PIE driver: the addresses the code was made for are the ones it runs with.
  assert.deepEqual(driverAddresses(run.stdout), a);
  const tail = run.stdout.split("\n").slice(-3).join("\n");
  assert.equal(run.status, 0, `exit ${run.status ?? run.signal}: ${tail}${run.stderr}`);
  const m = /^result (.*)$/m.exec(run.stdout);
  assert.ok(m, run.stdout);
  return Object.fromEntries(m[1].split(" ").map((kv) => kv.split("=")).map(([k, v]) => [k, +v]));
}

test("a64 ring: under qemu-aarch64, four producer threads and the allocator's entry points", (t) => {
  const why = noEmulation();
  if (why) return t.skip(why);
  const dir = mkdtempSync(join(tmpdir(), "a64-ring-"));
  try {
    // 16 slots: the ring is full most of the time (producers yield, the consumer sleeps and is
    // woken); 4096: producers rarely wait, so their claims race on the tail.
    for (const capacity of [16, 4096]) {
      const r = runDriver(dir, capacity);
      assert.equal(r.records, 80000);
      assert.equal(r.producers, 4);
      assert.equal(r.capacity, capacity);
      assert.equal(r.sleeping, 0);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
