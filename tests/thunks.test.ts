/**
 * The native callbacks: the x86-64 generator's bytes against a listing made by the GNU
 * assembler, the completion ring under several producer threads, and the allocator thunks, both
 * driven from C (tests/thunk_driver, built by `npm test`); the placing allocator's generated
 * bytes against tests/thunk_driver/x86_64_placing_reference.S as the GNU assembler made it.
 *
 * @module
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { test } from "./support/test.ts";
import { loadTriton } from "../ffi/loader.ts";
import type { CompletionKindValue } from "../ffi/completion_ring.ts";
import {
  EventfdWaiter,
  NativeRing,
  PipeWaiter,
  PostedWaiter,
  RingConsumer,
  type RingWaiter,
} from "../ffi/native_ring.ts";
import { ringBytes, RingLayout } from "../ffi/ring_layout.ts";
import { platform } from "../ffi/os.ts";
import { env, runtimeName } from "../ffi/runtime.ts";
import { compileBunRing } from "../ffi/thunks/bun_ring.ts";
import { installPlacingThunks, installThunks, type ThunkPointers } from "../ffi/thunks/install.ts";
import { generateX8664, MALLOC_FAILED } from "../ffi/thunks/x86_64.ts";
import { generatePlacingX8664 } from "../ffi/thunks/x86_64_placing.ts";
import type { Ptr } from "../ffi/types.ts";
import { runScript } from "./support/env.ts";
import { assembledReference as assembledText, NO_ASSEMBLER } from "./support/assembled.ts";

/** The constants tests/thunk_driver/x86_64_reference.S was assembled with. */
const LISTING_TARGETS = {
  base: 0x00007f000000a000n,
  ring: 0x0000111122223300n,
  capacity: 1024,
  eventfd: 7,
  malloc: 0x00007f0000001000n,
  free: 0x00007f0000002000n,
  errorNew: 0x00007f0000003000n,
  setMemoryType: 0x00007f0000004000n,
  setMemoryTypeId: 0x00007f0000005000n,
  jsAlloc: 0x00007f0000006000n,
  jsRelease: 0x00007f0000007000n,
  jsQuery: 0x00007f0000008000n,
  jsBufferAttributes: 0x00007f0000009000n,
};

/**
 * `as --64 tests/thunk_driver/x86_64_reference.S && objdump -d --insn-width=12`, up to the
 * message string (reviewed instruction by instruction against ffi/thunks/x86_64.ts).
 */
const LISTING = `
0000000000000000 <response_complete>:
   0:  f3 0f 1e fa                           endbr64
   4:  41 b8 01 00 00 00                     mov    $0x1,%r8d
   a:  eb 0a                                 jmp    16 <push>
000000000000000c <request_release>:
   c:  f3 0f 1e fa                           endbr64
  10:  41 b8 02 00 00 00                     mov    $0x2,%r8d
0000000000000016 <push>:
  16:  49 b9 00 33 22 22 11 11 00 00         movabs $0x111122223300,%r9
  20:  b8 01 00 00 00                        mov    $0x1,%eax
  25:  f0 49 0f c1 01                        lock xadd %rax,(%r9)
  2a:  41 89 c2                              mov    %eax,%r10d
  2d:  41 81 e2 ff 03 00 00                  and    $0x3ff,%r10d
  34:  49 c1 e2 05                           shl    $0x5,%r10
  38:  49 bb 80 33 22 22 11 11 00 00         movabs $0x111122223380,%r11
  42:  4d 01 da                              add    %r11,%r10
0000000000000045 <wait>:
  45:  41 39 02                              cmp    %eax,(%r10)
  48:  74 0b                                 je     55 <claimed>
  4a:  50                                    push   %rax
  4b:  b8 18 00 00 00                        mov    $0x18,%eax
  50:  0f 05                                 syscall
  52:  58                                    pop    %rax
  53:  eb f0                                 jmp    45 <wait>
0000000000000055 <claimed>:
  55:  49 89 7a 10                           mov    %rdi,0x10(%r10)
  59:  49 89 52 18                           mov    %rdx,0x18(%r10)
  5d:  41 89 72 08                           mov    %esi,0x8(%r10)
  61:  45 89 42 04                           mov    %r8d,0x4(%r10)
  65:  ff c0                                 inc    %eax
  67:  41 87 02                              xchg   %eax,(%r10)
  6a:  41 83 79 40 00                        cmpl   $0x0,0x40(%r9)
  6f:  75 01                                 jne    72 <wake>
  71:  c3                                    ret
0000000000000072 <wake>:
  72:  31 c0                                 xor    %eax,%eax
  74:  41 87 41 40                           xchg   %eax,0x40(%r9)
  78:  85 c0                                 test   %eax,%eax
  7a:  74 17                                 je     93 <woken>
  7c:  6a 01                                 push   $0x1
  7e:  b8 01 00 00 00                        mov    $0x1,%eax
  83:  bf 07 00 00 00                        mov    $0x7,%edi
  88:  48 89 e6                              mov    %rsp,%rsi
  8b:  ba 08 00 00 00                        mov    $0x8,%edx
  90:  0f 05                                 syscall
  92:  58                                    pop    %rax
0000000000000093 <woken>:
  93:  c3                                    ret
0000000000000094 <alloc>:
  94:  f3 0f 1e fa                           endbr64
  98:  4d 85 c9                              test   %r9,%r9
  9b:  74 0c                                 je     a9 <alloc_cpu>
  9d:  48 b8 00 60 00 00 00 7f 00 00         movabs $0x7f0000006000,%rax
  a7:  ff e0                                 jmp    *%rax
00000000000000a9 <alloc_cpu>:
  a9:  53                                    push   %rbx
  aa:  48 89 d7                              mov    %rdx,%rdi
  ad:  48 85 ff                              test   %rdi,%rdi
  b0:  75 05                                 jne    b7 <alloc_sized>
  b2:  bf 01 00 00 00                        mov    $0x1,%edi
00000000000000b7 <alloc_sized>:
  b7:  48 b8 00 10 00 00 00 7f 00 00         movabs $0x7f0000001000,%rax
  c1:  ff d0                                 call   *%rax
  c3:  48 85 c0                              test   %rax,%rax
  c6:  74 2f                                 je     f7 <alloc_failed>
  c8:  48 8b 4c 24 10                        mov    0x10(%rsp),%rcx
  cd:  48 89 01                              mov    %rax,(%rcx)
  d0:  48 8b 4c 24 18                        mov    0x18(%rsp),%rcx
  d5:  48 c7 01 01 00 00 00                  movq   $0x1,(%rcx)
  dc:  48 8b 4c 24 20                        mov    0x20(%rsp),%rcx
  e1:  c7 01 00 00 00 00                     movl   $0x0,(%rcx)
  e7:  48 8b 4c 24 28                        mov    0x28(%rsp),%rcx
  ec:  48 c7 01 00 00 00 00                  movq   $0x0,(%rcx)
  f3:  31 c0                                 xor    %eax,%eax
  f5:  5b                                    pop    %rbx
  f6:  c3                                    ret
00000000000000f7 <alloc_failed>:
  f7:  bf 01 00 00 00                        mov    $0x1,%edi
  fc:  48 be a7 a1 00 00 00 7f 00 00         movabs $0x7f000000a1a7,%rsi
 106:  48 b8 00 30 00 00 00 7f 00 00         movabs $0x7f0000003000,%rax
 110:  ff d0                                 call   *%rax
 112:  5b                                    pop    %rbx
 113:  c3                                    ret
0000000000000114 <release>:
 114:  f3 0f 1e fa                           endbr64
 118:  48 83 fa 01                           cmp    $0x1,%rdx
 11c:  74 0c                                 je     12a <release_cpu>
 11e:  48 b8 00 70 00 00 00 7f 00 00         movabs $0x7f0000007000,%rax
 128:  ff e0                                 jmp    *%rax
000000000000012a <release_cpu>:
 12a:  53                                    push   %rbx
 12b:  48 89 f7                              mov    %rsi,%rdi
 12e:  48 b8 00 20 00 00 00 7f 00 00         movabs $0x7f0000002000,%rax
 138:  ff d0                                 call   *%rax
 13a:  31 c0                                 xor    %eax,%eax
 13c:  5b                                    pop    %rbx
 13d:  c3                                    ret
000000000000013e <query>:
 13e:  f3 0f 1e fa                           endbr64
 142:  48 85 f6                              test   %rsi,%rsi
 145:  74 0c                                 je     153 <query_cpu>
 147:  48 b8 00 80 00 00 00 7f 00 00         movabs $0x7f0000008000,%rax
 151:  ff e0                                 jmp    *%rax
0000000000000153 <query_cpu>:
 153:  41 c7 00 00 00 00 00                  movl   $0x0,(%r8)
 15a:  49 c7 01 00 00 00 00                  movq   $0x0,(%r9)
 161:  31 c0                                 xor    %eax,%eax
 163:  c3                                    ret
0000000000000164 <buffer_attributes>:
 164:  f3 0f 1e fa                           endbr64
 168:  49 83 f8 01                           cmp    $0x1,%r8
 16c:  74 0c                                 je     17a <attributes_cpu>
 16e:  48 b8 00 90 00 00 00 7f 00 00         movabs $0x7f0000009000,%rax
 178:  ff e0                                 jmp    *%rax
000000000000017a <attributes_cpu>:
 17a:  53                                    push   %rbx
 17b:  48 89 d3                              mov    %rdx,%rbx
 17e:  48 89 d7                              mov    %rdx,%rdi
 181:  31 f6                                 xor    %esi,%esi
 183:  48 b8 00 40 00 00 00 7f 00 00         movabs $0x7f0000004000,%rax
 18d:  ff d0                                 call   *%rax
 18f:  48 85 c0                              test   %rax,%rax
 192:  75 11                                 jne    1a5 <attributes_done>
 194:  48 89 df                              mov    %rbx,%rdi
 197:  31 f6                                 xor    %esi,%esi
 199:  48 b8 00 50 00 00 00 7f 00 00         movabs $0x7f0000005000,%rax
 1a3:  ff d0                                 call   *%rax
00000000000001a5 <attributes_done>:
 1a5:  5b                                    pop    %rbx
 1a6:  c3                                    ret
`;

/** The bytes of an objdump listing. */
function listingBytes(listing: string): number[] {
  const bytes: number[] = [];
  for (const line of listing.split("\n")) {
    const m = /^\s*[0-9a-f]+:\s+((?:[0-9a-f]{2} )+)/.exec(line);
    if (m) { for (const b of m[1].trim().split(" ")) bytes.push(parseInt(b, 16)); }
  }
  return bytes;
}

/** The .text of x86_64_reference.S as the GNU assembler made it in the test build
 * (tests/thunk_driver/build.mjs, where `as` is present), or undefined. */
function assembledReference(): Uint8Array | undefined {
  const path = decodeURIComponent(
    new URL("../.build/thunk_driver/x86_64_reference.bin", import.meta.url).pathname,
  );
  return existsSync(path) ? new Uint8Array(readFileSync(path)) : undefined;
}

test("x86-64 thunks: the generated bytes are what the GNU assembler makes of the reference", () => {
  const { code, entries } = generateX8664(LISTING_TARGETS);
  const assembled = assembledReference();
  // Without `as`, the committed listing (of code only: the message follows it).
  const expected = assembled ? Array.from(assembled) : listingBytes(LISTING);
  const got = Array.from(code.subarray(0, expected.length));
  const first = got.findIndex((b, i) => b !== expected[i]);
  assert.equal(first, -1, `first difference at offset 0x${first.toString(16)}`);
  if (assembled) {
    assert.equal(code.length, assembled.length, "the assembled .text is the whole code");
  } else {
    console.log("    (no `as` in the test build: compared with the committed listing)");
  }
  assert.equal(
    new TextDecoder().decode(code.subarray(code.length - MALLOC_FAILED.length - 1)),
    MALLOC_FAILED + "\0",
  );
  assert.deepEqual(listingBytes(LISTING), got.slice(0, listingBytes(LISTING).length), "listing");
  assert.deepEqual(entries, {
    responseComplete: 0x0,
    requestRelease: 0xc,
    alloc: 0x94,
    release: 0x114,
    query: 0x13e,
    bufferAttributes: 0x164,
  });
});

test("x86-64 thunks: every entry is an endbr64; the ring mask and addresses follow the targets", () => {
  const targets = { ...LISTING_TARGETS, capacity: 1 << 16, ring: 0x00005555aaaa0000n };
  const { code, entries } = generateX8664(targets);
  for (const offset of Object.values(entries)) {
    assert.deepEqual(Array.from(code.subarray(offset, offset + 4)), [0xf3, 0x0f, 0x1e, 0xfa]);
  }
  const view = new DataView(code.buffer);
  assert.equal(view.getBigUint64(0x18, true), targets.ring); // movabs r9, ring
  assert.equal(view.getUint32(0x30, true), (1 << 16) - 1); // and r10d, mask
  assert.equal(view.getBigUint64(0x3a, true), targets.ring + 128n); // movabs r11, slots
  assert.throws(() => generateX8664({ ...targets, capacity: 1000 }), /power of two/);
});

const driverSymbols = {
  driver_start: { parameters: ["ptr", "ptr", "i32", "i32"], result: "i32", since: 0 },
  driver_finished: { parameters: [], result: "i32", since: 0 },
  driver_join: { parameters: [], result: "void", since: 0 },
  driver_check_allocator: { parameters: ["ptr", "ptr", "ptr", "ptr"], result: "i32", since: 0 },
  driver_check_placing: { parameters: ["ptr", "ptr"], result: "i32", since: 0 },
} as const;

const DRIVER_PATH = env("TRITONFFI_THUNK_DRIVER") ??
  decodeURIComponent(
    new URL("../.build/thunk_driver/libthunk_driver.so", import.meta.url).pathname,
  );

/** Why the tests that drive native producers cannot run here, or false. */
async function nativeUnusable(): Promise<string | false> {
  const { arch, linux } = platform();
  if (!linux || arch !== "x86_64") return `native callbacks are x86-64 Linux only (${arch})`;
  try {
    (await loadTriton()).ffi.open(DRIVER_PATH, driverSymbols);
    return false;
  } catch (e) {
    return `no thunk driver at ${DRIVER_PATH} (npm test builds it): ${e}`;
  }
}

const needsNative = { skip: await nativeUnusable() };
const bun = runtimeName() === "bun";

/** The library, the driver, and the native producers for a fresh ring (tests that call it skip
 * with {@link needsNative}). */
async function setup(capacity: number, eventfd = false) {
  const lib = await loadTriton();
  const { ffi } = lib;
  const driver = ffi.open(DRIVER_PATH, driverSymbols).sync;
  const ring = new NativeRing(ffi, capacity);
  const address = (p: Ptr) => BigInt(ffi.address(p));
  const inDriver = (name: string) => address(lib.addressIn(DRIVER_PATH, name));
  let waiter: RingWaiter;
  let pushes: { responseComplete: Ptr; requestRelease: Ptr };
  let thunks: ThunkPointers | undefined;
  if (ffi.name === "bun") {
    const posted = new PostedWaiter();
    const wake = ffi.callback({ parameters: [], result: "void" }, posted.fire);
    waiter = posted;
    pushes = compileBunRing(ffi, ring.address, capacity, wake);
  } else {
    waiter = eventfd ? new EventfdWaiter(ffi) : new PipeWaiter(ffi);
    thunks = installThunks(ffi, {
      ring: address(ring.address),
      capacity,
      eventfd: waiter.fd,
      malloc: inDriver("driver_malloc"), // libc malloc and free through counters
      free: inDriver("driver_free"),
      errorNew: inDriver("driver_fake_error_new"),
      setMemoryType: inDriver("driver_fake_set_memory_type"),
      setMemoryTypeId: inDriver("driver_fake_set_memory_type_id"),
      jsAlloc: inDriver("driver_fake_js_alloc"),
      jsRelease: inDriver("driver_fake_js_release"),
      jsQuery: inDriver("driver_fake_js_query"),
      jsBufferAttributes: inDriver("driver_fake_js_attributes"),
    });
    pushes = thunks;
  }
  return { lib, driver, ring, waiter, pushes, thunks };
}

/** Pushes `threads × count` completions from C threads; checks each arrives once, in order. */
async function completions(threads: number, count: number, capacity: number, eventfd = false) {
  const { lib, driver, ring, waiter, pushes } = await setup(capacity, eventfd);
  const total = threads * count;
  const seen = new Uint8Array(total);
  const last = new Int32Array(threads).fill(-1);
  let received = 0;
  let problem: string | undefined;
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  const consumer = new RingConsumer(ring, waiter);
  consumer.setHandler((kind: CompletionKindValue, object: Ptr, flags: number, userp: number) => {
    const n = lib.ffi.address(object) - 1;
    const t = userp - 1;
    const i = n - t * count;
    if (problem === undefined) {
      if (t < 0 || t >= threads || i !== flags) problem = `bad slot ${n} ${flags} ${userp}`;
      else if (seen[n]++ !== 0) problem = `completion ${n} seen twice`;
      else if (kind !== (t % 2 === 0 ? 1 : 2)) problem = `completion ${n} has kind ${kind}`;
      else if (i !== last[t] + 1) problem = `thread ${t}: ${i} after ${last[t]}`;
      last[t] = i;
    }
    if (++received === total) done();
  });
  consumer.busy();
  const t0 = performance.now();
  assert.equal(
    driver.driver_start(pushes.responseComplete, pushes.requestRelease, threads, count),
    0,
  );
  const timeout = setTimeout(() => done(), 60_000);
  await finished;
  clearTimeout(timeout);
  const seconds = (performance.now() - t0) / 1000;
  consumer.idle();
  while (driver.driver_finished() < threads) await new Promise((r) => setTimeout(r, 5));
  driver.driver_join();
  assert.equal(problem, undefined, problem);
  assert.equal(received, total, `received ${received} of ${total}`);
  assert.ok(!ring.ready(), "nothing left over");
  return seconds;
}

/** `TEST_STRESS_SCALE` scales the ring stress's count (tests/aarch64/run.mjs: 0.1 under
 * emulation). */
const stressScale = Number(env("TEST_STRESS_SCALE") ?? 1);

test(
  "native ring: 1M completions from 4 producer threads through a 1024-slot ring, none lost or duplicated",
  { ...needsNative, timeout: 120_000 },
  async () => {
    const perThread = Math.max(1, Math.round(250_000 * stressScale));
    const seconds = await completions(4, perThread, 1024);
    const rate = (4 * perThread) / seconds / 1000;
    console.log(`        (${4 * perThread} completions, ${rate.toFixed(0)}k completions/s)`);
  },
);

test("native ring: eventfd wake-up (the fallback wait), 100k completions", {
  skip: needsNative.skip || (bun && "Bun wakes the consumer with a posted callback"),
}, async () => {
  await completions(2, 50_000, 256, true);
});

test(
  "allocator thunks: CPU sizes, alignment, out-parameters and free; other policies forwarded intact; malloc failure",
  {
    skip: needsNative.skip ||
      (bun && "bun: the allocator is C compiled by cc() (see memory tests)"),
  },
  async () => {
    const { driver, thunks } = await setup(64);
    assert.ok(thunks, "the allocator thunks were installed");
    const failed = driver.driver_check_allocator(
      thunks.alloc,
      thunks.release,
      thunks.query,
      thunks.bufferAttributes,
    );
    assert.equal(failed, 0, `check ${failed} of driver_check_allocator failed`);
  },
);

test(
  "placing allocator thunks: a placed output that fits gets its address natively, released without a free; anything else forwarded intact",
  {
    skip: needsNative.skip ||
      (bun && "bun: the placing allocator is C compiled by cc() (see output_placement tests)"),
  },
  async () => {
    const { lib } = await setup(64);
    const { ffi } = lib;
    const inDriver = (name: string) => BigInt(ffi.address(lib.addressIn(DRIVER_PATH, name)));
    const driver = ffi.open(DRIVER_PATH, driverSymbols).sync;
    const placing = installPlacingThunks(ffi, {
      jsAlloc: inDriver("driver_fake_js_alloc"),
      release: inDriver("driver_fake_js_release"),
    });
    const failed = driver.driver_check_placing(placing.alloc, placing.release);
    assert.equal(failed, 0, `check ${failed} of driver_check_placing failed`);
  },
);

/** The addresses tests/thunk_driver/x86_64_placing_reference.S was assembled with. */
const PLACING_TARGETS = { jsAlloc: 0x00007f0000021000n, release: 0x00007f0000022000n };

test("x86-64 placing allocator: the generated bytes are what the GNU assembler makes of the reference", (t) => {
  const expected = assembledText("x86_64_placing_reference");
  if (!expected) {
    t.skip(NO_ASSEMBLER);
    return;
  }
  const { code, entries } = generatePlacingX8664(PLACING_TARGETS);
  assert.deepEqual(Array.from(code), expected);
  assert.deepEqual(entries, { alloc: 0x0, release: 0x93 });
});

test(
  "ring consumer: stops polling after 8 fruitless polls, and polls again once completions are " +
    "waiting when a poll begins",
  needsNative,
  async () => {
    const lib = await loadTriton();
    const capacity = 16;
    const ring = new NativeRing(lib.ffi, capacity);
    const slots = new Int32Array(lib.ffi.view(ring.address, ringBytes(capacity)));
    let tail = 0;
    /** Publishes one completion, as a producer thread does. */
    const publish = () => {
      const at = RingLayout.SLOTS + (tail & (capacity - 1)) * RingLayout.SLOT_SIZE;
      slots[(at + RingLayout.SLOT_KIND) >> 2] = 1; // a response
      slots[(at + RingLayout.SLOT_USERP) >> 2] = 1;
      Atomics.store(slots, (at + RingLayout.SLOT_SEQ) >> 2, ++tail);
    };
    let woken: (() => void) | undefined;
    let waits = 0;
    let waitedAt = 0;
    const waiter: RingWaiter = {
      fd: -1,
      keepsAlive: false,
      wait(w) {
        waits++;
        waitedAt = performance.now();
        woken = w;
      },
      cancel() {},
      resume() {},
    };
    const pollMs = 20;
    const consumer = new RingConsumer(ring, waiter, pollMs * 1000);
    let handled = 0;
    let handledAt = 0;
    consumer.setHandler(() => {
      handled++;
      handledAt = performance.now();
    });
    const waitFor = async (done: () => boolean) => {
      const until = performance.now() + 10_000;
      while (!done()) {
        assert.ok(performance.now() < until, "the consumer did not get there");
        await new Promise((r) => setTimeout(r, 1));
      }
    };
    /** Hands the sleeping consumer one completion; true when it then slept without polling. */
    const wake = () => {
      const before = waits;
      publish();
      woken!();
      return waits > before;
    };
    try {
      consumer.busy();
      // Eight polls that find nothing (each spins pollMs, then the consumer sleeps).
      for (let i = 0; i < 8; i++) {
        const before = waits;
        if (i > 0) assert.equal(wake(), false, `poll ${i + 1} was scheduled`);
        await waitFor(() => waits > before);
      }
      assert.equal(wake(), true, "after 8 fruitless polls, the consumer sleeps at once");
      // Only one wait in 16 still polls: hand it a completion before that poll begins.
      let n = 0;
      while (wake()) assert.ok(++n < 16, "no retry poll within 16 waits");
      const count = handled;
      publish();
      await waitFor(() => handled > count);
      const drainedAt = handledAt;
      await waitFor(() => waitedAt > drainedAt);
      // The poll found a completion waiting: polling pays again, so the consumer polls (pollMs)
      // before it sleeps, instead of sleeping at once.
      assert.ok(
        waitedAt - drainedAt >= pollMs * 0.9,
        `slept ${(waitedAt - drainedAt).toFixed(2)} ms after the drain`,
      );
    } finally {
      consumer.idle();
    }
  },
);

test("TRITONFFI_CALLBACKS chooses the callback path", async () => {
  const lib = await loadTriton();
  const table = lib.binding.callbacks;
  const asked = env("TRITONFFI_CALLBACKS");
  if (asked === "native" || asked === "js") assert.equal(table.mode, asked);
  const { arch, linux } = platform();
  if (!asked && linux && arch === "x86_64") {
    assert.equal(table.mode, "native", `fell back: ${table.fallbackReason}`);
  }
});

test(
  "a request keeps the process alive, also after the completion consumer went idle",
  { timeout: 120_000 },
  async () => {
    const r = await runScript("support/idle_then_busy.ts", { TRITONFFI_POLL_US: "0" });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ok$/m);
  },
);
