/* delete_each.c - the batch deleter's comparator for Bun, compiled at run time by cc(): the same
 * function as ffi/native/x86_64/delete_each.ts (what it is for: ffi/native/deletes.ts).
 *
 * `*item` is a native object's address with its kind in bit 0 (0 a response, 1 a request);
 * `table[kind]` deletes it (TRITONSERVER_InferenceResponseDelete or
 * TRITONSERVER_InferenceRequestDelete; their error, NULL for a live object, is not read). Returns
 * 1, so that libc lfind goes on to the next item. */
#include <stdint.h>

typedef void* (*delete_fn)(void*);

int
tritonffi_delete_each(const void* table, const void* item)
{
  uint64_t v = *(const uint64_t*)item;
  delete_fn fn = ((delete_fn const*)table)[v & 1];
  fn((void*)(uintptr_t)(v & ~(uint64_t)1));
  return 1;
}
