/* counts.c - live object accounting for leak checks (FAKECORE_LiveCount). (The fake core's own:
 * nothing here imitates the real core.) */
#include "fake_core.h"

#include <string.h>

static atomic_llong g_counts[FC_K_COUNT];

static const char* const g_kind_names[FC_K_COUNT] = {
    "error",   "server_options", "server",  "request",  "response",
    "allocator", "buffer",       "message", "parameter", "trace",
    "metrics",   "metric_family", "metric",  "metric_args",
};

void
fc_count_inc(fc_kind kind)
{
  atomic_fetch_add(&g_counts[kind], 1);
}

void
fc_count_dec(fc_kind kind)
{
  atomic_fetch_sub(&g_counts[kind], 1);
}

int64_t
FAKECORE_LiveCount(const char* kind)
{
  if (kind == NULL) {
    return -1;
  }
  if (strcmp(kind, "total") == 0) {
    int64_t sum = 0;
    for (int i = 0; i < FC_K_COUNT; ++i) {
      sum += (int64_t)atomic_load(&g_counts[i]);
    }
    return sum;
  }
  for (int i = 0; i < FC_K_COUNT; ++i) {
    if (strcmp(kind, g_kind_names[i]) == 0) {
      return (int64_t)atomic_load(&g_counts[i]);
    }
  }
  return -1; /* unknown kind */
}
