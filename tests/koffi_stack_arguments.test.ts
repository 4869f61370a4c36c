/**
 * Node's callbacks with more than 8 arguments receive every argument where C put it
 * (ffi/koffi_stack_arguments.ts): a callback of Triton's allocator shape, registered as the Node
 * adapter registers it, called through koffi as C calls it. On x86-64 koffi reads stack arguments
 * right; on arm64 (`npm run test:aarch64`) koffi 3.3.4 reads them one slot low and the adapter
 * registers a dummy slot.
 *
 * @module
 */
import assert from "node:assert/strict";
import process from "node:process";
import { runtimeName } from "../ffi/runtime.ts";
import { test } from "./support/test.ts";

const node = runtimeName() === "node";

test("a koffi callback of 10 arguments receives all ten", {
  skip: !node && "koffi is Node's adapter",
}, async () => {
  const { default: koffi } = await import("koffi" as string);
  const { registeredForm, stackArgumentLayout } = await import("../ffi/koffi_stack_arguments.ts");
  // TRITONSERVER_ResponseAllocatorAllocFn_t as the Node adapter declares its callback
  const params = [
    "uintptr_t", // TRITONSERVER_ResponseAllocator* allocator
    "uintptr_t", // const char* tensor_name
    "size_t", // size_t byte_size
    "int32_t", // TRITONSERVER_MemoryType memory_type
    "int64_t", // int64_t memory_type_id
    "uintptr_t", // void* userp
    "uintptr_t", // void** buffer
    "uintptr_t", // void** buffer_userp
    "uintptr_t", // TRITONSERVER_MemoryType* actual_memory_type
    "uintptr_t", // int64_t* actual_memory_type_id
  ];
  let seen: unknown[] = [];
  const form = registeredForm(() => stackArgumentLayout(koffi), params, (...args: never[]) => {
    seen = args;
    return 0;
  });
  const registered = koffi.proto("koffi_stack_test_registered", "uintptr_t", form.params);
  const called = koffi.proto("koffi_stack_test_called", "uintptr_t", params);
  const callback = koffi.register(form.fn, koffi.pointer(registered));
  try {
    const args = [0x1111, 0x2222, 4096, 2, 3, 0x6666, 0x7777, 0x8888, 0x9999, 0xaaaa];
    koffi.call(callback, called, ...args);
    assert.deepEqual(seen.map(Number), args);
  } finally {
    koffi.unregister(callback);
  }
  const layout = stackArgumentLayout(koffi);
  if (process.arch === "x64") assert.equal(layout, "plain");
  assert.equal(form.params.length, layout === "plain" ? 10 : 11);
});
