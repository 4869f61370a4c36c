/* probe.c - test-only records of addresses crossing the API, so tests can check zero-copy:
 * the base of the last input data appended (FAKECORE_LastInputBase) and the last buffer the
 * response allocator handed out (FAKECORE_LastOutputBuffer); and how many times an object was
 * used after what it depends on was deleted (FAKECORE_MisuseCount). */
#include "fake_core.h"

#include <stdatomic.h>

static _Atomic(const void*) g_last_input;
static _Atomic(const void*) g_last_output;
static atomic_int g_misuse;

void
fc_probe_input(const void* base)
{
  atomic_store(&g_last_input, base);
}

void
fc_probe_output(const void* buffer)
{
  atomic_store(&g_last_output, buffer);
}

FC_EXPORT const void*
FAKECORE_LastInputBase(void)
{
  return atomic_load(&g_last_input);
}

FC_EXPORT const void*
FAKECORE_LastOutputBuffer(void)
{
  return atomic_load(&g_last_output);
}

void
fc_probe_misuse(void)
{
  atomic_fetch_add(&g_misuse, 1);
}

FC_EXPORT int
FAKECORE_MisuseCount(void)
{
  return atomic_load(&g_misuse);
}
