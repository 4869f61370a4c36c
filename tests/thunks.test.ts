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
} from "../ffi/native/ring.ts";
import { ringBytes, RingLayout } from "../ffi/native/ring_layout.ts";
import { platform } from "../ffi/os.ts";
import { env, runtimeName } from "../ffi/runtime.ts";
import { compileBunRing } from "../ffi/native/bun_ring.ts";
import { installPlacingThunks, installThunks, type ThunkPointers } from "../ffi/native/install.ts";
import { chooseNativePath, routinesFor } from "../ffi/native/platform.ts";
import type { Routines } from "../ffi/native/routines.ts";
import { LIBC_PATH } from "../ffi/libc.ts";
import { MALLOC_FAILED } from "../ffi/native/routines.ts";
import { generateX8664 } from "../ffi/native/x86_64/ring.ts";
import { generatePlacingX8664 } from "../ffi/native/x86_64/placing.ts";
import type { Ptr } from "../ffi/types.ts";
import { runScript } from "./support/env.ts";
import { assembledReference as assembledText, NO_ASSEMBLER } from "./support/assembled.ts";

/** The constants tests/thunk_driver/x86_64_reference.S was assembled with. */
const LISTING_TARGETS = {
  ring: 0x0000111122223300n,
  capacity: 1024,
  eventfd: 7,
  write: 0x00007f000000b000n,
  schedYield: 0x00007f000000c000n,
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
 * message string (reviewed instruction by instruction against ffi/native/x86_64/ring.ts).
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
  16:  4c 8b 0d 83 01 00 00                  mov    0x183(%rip),%r9        # 1a0 <ring_at>
  1d:  b8 01 00 00 00                        mov    $0x1,%eax
  22:  f0 49 0f c1 01                        lock xadd %rax,(%r9)
  27:  41 89 c2                              mov    %eax,%r10d
  2a:  41 81 e2 ff 03 00 00                  and    $0x3ff,%r10d
  31:  49 c1 e2 05                           shl    $0x5,%r10
  35:  4d 8d 99 80 00 00 00                  lea    0x80(%r9),%r11
  3c:  4d 01 da                              add    %r11,%r10
000000000000003f <wait>:
  3f:  41 39 02                              cmp    %eax,(%r10)
  42:  74 1c                                 je     60 <claimed>
  44:  50                                    push   %rax
  45:  57                                    push   %rdi
  46:  56                                    push   %rsi
  47:  52                                    push   %rdx
  48:  41 50                                 push   %r8
  4a:  41 51                                 push   %r9
  4c:  41 52                                 push   %r10
  4e:  ff 15 54 01 00 00                     call   *0x154(%rip)        # 1a8 <sched_yield_at>
  54:  41 5a                                 pop    %r10
  56:  41 59                                 pop    %r9
  58:  41 58                                 pop    %r8
  5a:  5a                                    pop    %rdx
  5b:  5e                                    pop    %rsi
  5c:  5f                                    pop    %rdi
  5d:  58                                    pop    %rax
  5e:  eb df                                 jmp    3f <wait>
0000000000000060 <claimed>:
  60:  49 89 7a 10                           mov    %rdi,0x10(%r10)
  64:  49 89 52 18                           mov    %rdx,0x18(%r10)
  68:  41 89 72 08                           mov    %esi,0x8(%r10)
  6c:  45 89 42 04                           mov    %r8d,0x4(%r10)
  70:  ff c0                                 inc    %eax
  72:  41 87 02                              xchg   %eax,(%r10)
  75:  41 83 79 40 00                        cmpl   $0x0,0x40(%r9)
  7a:  75 01                                 jne    7d <wake>
  7c:  c3                                    ret
000000000000007d <wake>:
  7d:  31 c0                                 xor    %eax,%eax
  7f:  41 87 41 40                           xchg   %eax,0x40(%r9)
  83:  85 c0                                 test   %eax,%eax
  85:  74 16                                 je     9d <woken>
  87:  6a 01                                 push   $0x1
  89:  bf 07 00 00 00                        mov    $0x7,%edi
  8e:  48 89 e6                              mov    %rsp,%rsi
  91:  ba 08 00 00 00                        mov    $0x8,%edx
  96:  ff 15 14 01 00 00                     call   *0x114(%rip)        # 1b0 <write_at>
  9c:  58                                    pop    %rax
000000000000009d <woken>:
  9d:  c3                                    ret
000000000000009e <alloc>:
  9e:  f3 0f 1e fa                           endbr64
  a2:  4d 85 c9                              test   %r9,%r9
  a5:  74 06                                 je     ad <alloc_cpu>
  a7:  ff 25 0b 01 00 00                     jmp    *0x10b(%rip)        # 1b8 <js_alloc_at>
00000000000000ad <alloc_cpu>:
  ad:  53                                    push   %rbx
  ae:  48 89 d7                              mov    %rdx,%rdi
  b1:  48 85 ff                              test   %rdi,%rdi
  b4:  75 05                                 jne    bb <alloc_sized>
  b6:  bf 01 00 00 00                        mov    $0x1,%edi
00000000000000bb <alloc_sized>:
  bb:  ff 15 ff 00 00 00                     call   *0xff(%rip)        # 1c0 <malloc_at>
  c1:  48 85 c0                              test   %rax,%rax
  c4:  74 2f                                 je     f5 <alloc_failed>
  c6:  48 8b 4c 24 10                        mov    0x10(%rsp),%rcx
  cb:  48 89 01                              mov    %rax,(%rcx)
  ce:  48 8b 4c 24 18                        mov    0x18(%rsp),%rcx
  d3:  48 c7 01 01 00 00 00                  movq   $0x1,(%rcx)
  da:  48 8b 4c 24 20                        mov    0x20(%rsp),%rcx
  df:  c7 01 00 00 00 00                     movl   $0x0,(%rcx)
  e5:  48 8b 4c 24 28                        mov    0x28(%rsp),%rcx
  ea:  48 c7 01 00 00 00 00                  movq   $0x0,(%rcx)
  f1:  31 c0                                 xor    %eax,%eax
  f3:  5b                                    pop    %rbx
  f4:  c3                                    ret
00000000000000f5 <alloc_failed>:
  f5:  bf 01 00 00 00                        mov    $0x1,%edi
  fa:  48 8d 35 77 00 00 00                  lea    0x77(%rip),%rsi        # 178 <message>
 101:  ff 15 c1 00 00 00                     call   *0xc1(%rip)        # 1c8 <error_new_at>
 107:  5b                                    pop    %rbx
 108:  c3                                    ret
0000000000000109 <release>:
 109:  f3 0f 1e fa                           endbr64
 10d:  48 83 fa 01                           cmp    $0x1,%rdx
 111:  74 06                                 je     119 <release_cpu>
 113:  ff 25 b7 00 00 00                     jmp    *0xb7(%rip)        # 1d0 <js_release_at>
0000000000000119 <release_cpu>:
 119:  53                                    push   %rbx
 11a:  48 89 f7                              mov    %rsi,%rdi
 11d:  ff 15 b5 00 00 00                     call   *0xb5(%rip)        # 1d8 <free_at>
 123:  31 c0                                 xor    %eax,%eax
 125:  5b                                    pop    %rbx
 126:  c3                                    ret
0000000000000127 <query>:
 127:  f3 0f 1e fa                           endbr64
 12b:  48 85 f6                              test   %rsi,%rsi
 12e:  74 06                                 je     136 <query_cpu>
 130:  ff 25 aa 00 00 00                     jmp    *0xaa(%rip)        # 1e0 <js_query_at>
0000000000000136 <query_cpu>:
 136:  41 c7 00 00 00 00 00                  movl   $0x0,(%r8)
 13d:  49 c7 01 00 00 00 00                  movq   $0x0,(%r9)
 144:  31 c0                                 xor    %eax,%eax
 146:  c3                                    ret
0000000000000147 <buffer_attributes>:
 147:  f3 0f 1e fa                           endbr64
 14b:  49 83 f8 01                           cmp    $0x1,%r8
 14f:  74 06                                 je     157 <attributes_cpu>
 151:  ff 25 91 00 00 00                     jmp    *0x91(%rip)        # 1e8 <js_attrs_at>
0000000000000157 <attributes_cpu>:
 157:  53                                    push   %rbx
 158:  48 89 d3                              mov    %rdx,%rbx
 15b:  48 89 d7                              mov    %rdx,%rdi
 15e:  31 f6                                 xor    %esi,%esi
 160:  ff 15 8a 00 00 00                     call   *0x8a(%rip)        # 1f0 <set_type_at>
 166:  48 85 c0                              test   %rax,%rax
 169:  75 0b                                 jne    176 <attributes_done>
 16b:  48 89 df                              mov    %rbx,%rdi
 16e:  31 f6                                 xor    %esi,%esi
 170:  ff 15 82 00 00 00                     call   *0x82(%rip)        # 1f8 <set_type_id_at>
0000000000000176 <attributes_done>:
 176:  5b                                    pop    %rbx
 177:  c3                                    ret
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
  const message = 0x178; // after bufferAttributes' last ret
  assert.equal(
    new TextDecoder().decode(code.subarray(message, message + MALLOC_FAILED.length + 1)),
    MALLOC_FAILED + "\0",
  );
  assert.deepEqual(listingBytes(LISTING), got.slice(0, listingBytes(LISTING).length), "listing");
  assert.deepEqual(entries, {
    responseComplete: 0x0,
    requestRelease: 0xc,
    alloc: 0x9e,
    release: 0x109,
    query: 0x127,
    bufferAttributes: 0x147,
  });
});

test("x86-64 thunks: every entry is an endbr64; the ring mask and the address table follow the targets", () => {
  const targets = { ...LISTING_TARGETS, capacity: 1 << 16, ring: 0x00005555aaaa0000n };
  const { code, entries } = generateX8664(targets);
  for (const offset of Object.values(entries)) {
    assert.deepEqual(Array.from(code.subarray(offset, offset + 4)), [0xf3, 0x0f, 0x1e, 0xfa]);
  }
  const view = new DataView(code.buffer);
  assert.equal(view.getUint32(0x2d, true), (1 << 16) - 1); // and r10d, mask
  // The table ends the code, 8-byte aligned, in the order first named; no address is anywhere
  // else in it (no 64-bit immediate).
  const table = [
    targets.ring,
    targets.schedYield,
    targets.write,
    targets.jsAlloc,
    targets.malloc,
    targets.errorNew,
    targets.jsRelease,
    targets.free,
    targets.jsQuery,
    targets.jsBufferAttributes,
    targets.setMemoryType,
    targets.setMemoryTypeId,
  ];
  const at = code.length - 8 * table.length;
  assert.equal(at % 8, 0);
  table.forEach((value, i) => assert.equal(view.getBigUint64(at + 8 * i, true), value));
  for (const value of table) {
    const found: number[] = [];
    for (let o = 0; o + 8 <= code.length; o++) {
      if (view.getBigUint64(o, true) === value) found.push(o);
    }
    assert.equal(found.length, 1, `0x${value.toString(16)} appears only in the table`);
  }
  // mov r9, [rip+disp32] at 0x16 reads the ring's entry.
  assert.deepEqual(Array.from(code.subarray(0x16, 0x19)), [0x4c, 0x8b, 0x0d]);
  assert.equal(0x1d + view.getInt32(0x19, true), at);
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

/** The generated routines of this CPU (the tests that use them skip where there are none). */
function routines(): Routines {
  const generated = routinesFor(platform().arch);
  if (typeof generated === "string") throw new Error(generated);
  return generated;
}

/** Why the tests that drive native producers cannot run here, or false. */
async function nativeUnusable(): Promise<string | false> {
  const { arch, linux } = platform();
  const generated = routinesFor(arch);
  if (!linux || typeof generated === "string") return `no native routines here (${arch})`;
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
    pushes = compileBunRing(ffi, ring.address, capacity, wake, routines());
  } else {
    waiter = eventfd ? new EventfdWaiter(ffi) : new PipeWaiter(ffi);
    thunks = installThunks(ffi, routines(), {
      ring: address(ring.address),
      capacity,
      eventfd: waiter.fd,
      write: address(lib.addressIn(LIBC_PATH, "write")),
      schedYield: address(lib.addressIn(LIBC_PATH, "sched_yield")),
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
    const placing = installPlacingThunks(ffi, routines(), {
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
  assert.deepEqual(entries, { alloc: 0x0, release: 0x8d });
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
  if (!asked && chooseNativePath(lib.ffi).kind !== "none") {
    assert.equal(table.mode, "native", `fell back: ${table.fallbackReason}`);
  }
  assert.equal(table.nativePath.kind === "none", table.mode === "js");
  assert.equal(table.fallbackReason, table.nativePath.reason);
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
