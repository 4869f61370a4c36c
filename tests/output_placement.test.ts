/**
 * Output placement tables (ffi/output_placement.ts), the placing response allocator's `userp`:
 * written to native memory and read back as the JS allocator reads them (Deno, Node), and placed by
 * the C allocator Bun compiles (ffi/native/c/allocator.c): a named output gets the table's address
 * when it fits (its buffer_userp REGION, released without a free), tritonserver's error when it
 * does not, and any other output is allocated by the table's policy. The served path, on every
 * runtime and both callback paths, is tests/serve_shared_memory.test.ts.
 */
import assert from "node:assert/strict";
import { after } from "node:test";
import { test } from "./support/test.ts";
import { sharedServer, stopShared } from "./support/env.ts";
import {
  allocatorCSymbols,
  allocatorDefines,
  allocatorSource,
  BufferUserp,
  encodeBufferUserp,
  placedTooSmall,
} from "../ffi/allocator.ts";
import { MemoryType } from "../ffi/enums.ts";
import { readOutputPlacement, writeOutputPlacement } from "../ffi/output_placement.ts";
import { runtimeName } from "../ffi/runtime.ts";

after(stopShared);

test("a placement table reads back as written: names (UTF-8 too), addresses, sizes, policy", async () => {
  const { lib } = (await sharedServer()).native();
  const { ffi } = lib;
  const outputs = [
    { name: "OUTPUT0", address: 0x7f00_0000_1000, byteSize: 64 },
    { name: "sortie-é", address: 0x10, byteSize: 4 * 1024 * 1024 },
    { name: "", address: 0, byteSize: 0 },
  ];
  const table = writeOutputPlacement(lib, ffi.fromAddress(0x20103), outputs);
  try {
    const view = readOutputPlacement(ffi, table.userp);
    assert.equal(view.policy, 0x20103);
    for (const o of outputs) {
      assert.deepEqual(view.find(o.name), { address: o.address, byteSize: o.byteSize }, o.name);
    }
    assert.equal(view.find("OUTPUT"), undefined);
    assert.equal(view.find("OUTPUT00"), undefined);
  } finally {
    table.free();
    table.free(); // idempotent
  }
  const empty = writeOutputPlacement(lib, ffi.NULL, []);
  assert.equal(readOutputPlacement(ffi, empty.userp).find("OUTPUT0"), undefined);
  empty.free();
});

test("the C placing allocator places by the table, errs as tritonserver, allocates the rest", {
  skip: runtimeName() === "bun" ? false : "only Bun compiles C at run time",
}, async () => {
  const { lib } = (await sharedServer()).native();
  const { ffi, api } = lib;
  const c = ffi.compile!(allocatorSource(), allocatorDefines(), allocatorCSymbols);
  c.call.tritonffi_configure(
    lib.symbolAddress("TRITONSERVER_ErrorNew"),
    lib.symbolAddress("TRITONSERVER_BufferAttributesSetMemoryType"),
    lib.symbolAddress("TRITONSERVER_BufferAttributesSetMemoryTypeId"),
  );
  const region = new Uint8Array(256);
  const address = ffi.address(ffi.addressOf(region)) + 16;
  const table = writeOutputPlacement(lib, ffi.NULL, [{ name: "OUT", address, byteSize: 64 }]);
  const cstr = (s: string) => new TextEncoder().encode(`${s}\0`);
  const out = new BigUint64Array(3); // buffer, buffer_userp, actual id
  const type = new Uint32Array(1);
  const alloc = (name: Uint8Array, bytes: number) =>
    c.call.tritonffi_placed_alloc(
      ffi.NULL,
      ffi.addressOf(name),
      BigInt(bytes),
      MemoryType.CPU,
      0n,
      table.userp,
      ffi.addressOf(out.subarray(0, 1)),
      ffi.addressOf(out.subarray(1, 2)),
      ffi.addressOf(type),
      ffi.addressOf(out.subarray(2, 3)),
    );
  try {
    const name = cstr("OUT");
    for (const bytes of [0, 1, 64]) {
      out.fill(1n);
      type[0] = 9;
      assert.ok(ffi.isNull(alloc(name, bytes)), `${bytes} bytes`);
      assert.deepEqual(
        [Number(out[0]), Number(out[1]), type[0], out[2]],
        [address, BufferUserp.REGION, MemoryType.CPU, 0n],
      );
      const released = c.call.tritonffi_placed_release(
        ffi.NULL,
        ffi.fromAddress(out[0]),
        ffi.fromAddress(out[1]),
        BigInt(bytes),
        MemoryType.CPU,
        0n,
      );
      assert.ok(ffi.isNull(released)); // nothing freed: freeing the region's address would abort
    }
    const err = alloc(name, 65);
    assert.ok(!ffi.isNull(err));
    assert.equal(api.TRITONSERVER_ErrorMessage(err), placedTooSmall("OUT", 64, 65));
    api.TRITONSERVER_ErrorDelete(err);

    // Not in the table: host memory by the policy, freed by release.
    out.fill(0n);
    assert.ok(ffi.isNull(alloc(cstr("OTHER"), 32)));
    assert.notEqual(Number(out[0]), address);
    assert.notEqual(out[0], 0n);
    assert.equal(Number(out[1]), encodeBufferUserp(MemoryType.CPU, 0));
    const freed = c.call.tritonffi_placed_release(
      ffi.NULL,
      ffi.fromAddress(out[0]),
      ffi.fromAddress(out[1]),
      32n,
      MemoryType.CPU,
      0n,
    );
    assert.ok(ffi.isNull(freed));
  } finally {
    table.free();
  }
});
