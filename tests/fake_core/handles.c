/* handles.c - the live servers, requests and responses, so that a use or a delete of one that was
 * already deleted (or never created) stops the process with the function's name, where the real
 * core would read freed memory and crash some time later, or corrupt the heap. (The fake core's
 * own: the real core keeps no such table.) */
#include "fake_core.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* An open-addressing set of (pointer, kind); a removed entry becomes a tombstone. */
typedef struct {
  uintptr_t ptr; /* 0: empty; 1: tombstone */
  int kind;
} fc_handle;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static fc_handle* g_table;
static size_t g_cap; /* a power of two */
static size_t g_used; /* live entries and tombstones */

static const char* const g_names[FC_K_COUNT] = {
    [FC_K_SERVER] = "server",
    [FC_K_REQUEST] = "inference request",
    [FC_K_RESPONSE] = "inference response",
};

static size_t
slot_of(uintptr_t p)
{
  uint64_t h = (uint64_t)p * 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 17) & (g_cap - 1);
}

/* The slot holding `p`, or the empty slot where it would go (g_mu held). */
static size_t
find_locked(uintptr_t p)
{
  size_t i = slot_of(p);
  while (g_table[i].ptr != 0 && g_table[i].ptr != p) {
    i = (i + 1) & (g_cap - 1);
  }
  return i;
}

/* Rebuilds the table without its tombstones, twice as large only when live entries fill more than
 * a quarter of it (so that a steady churn of creates and deletes keeps its size). */
static void
grow_locked(void)
{
  fc_handle* old = g_table;
  size_t old_cap = g_cap;
  size_t live = 0;
  for (size_t i = 0; i < old_cap; ++i) {
    live += old[i].ptr > 1;
  }
  g_cap = old_cap == 0 ? 1024 : (live + 1) * 4 > old_cap ? old_cap * 2 : old_cap;
  g_table = fc_xcalloc(g_cap, sizeof(*g_table));
  g_used = 0;
  for (size_t i = 0; i < old_cap; ++i) {
    if (old[i].ptr > 1) {
      g_table[find_locked(old[i].ptr)] = old[i];
      g_used++;
    }
  }
  free(old);
}

static void
misuse(const char* fn, const void* p, fc_kind kind, const char* what)
{
  fprintf(
      stderr,
      "fake core: %s(%p): %s %s (the real core reads freed memory here and crashes)\n", fn,
      p, what, g_names[kind]);
  abort();
}

void
fc_handle_add(fc_kind kind, const void* p)
{
  pthread_mutex_lock(&g_mu);
  if ((g_used + 1) * 2 > g_cap) {
    grow_locked();
  }
  size_t i = find_locked((uintptr_t)p);
  if (g_table[i].ptr == 0) {
    g_used++;
  }
  g_table[i].ptr = (uintptr_t)p;
  g_table[i].kind = kind;
  pthread_mutex_unlock(&g_mu);
}

static bool
live_locked(fc_kind kind, const void* p, size_t* slot)
{
  if (g_cap == 0) {
    return false;
  }
  size_t i = find_locked((uintptr_t)p);
  *slot = i;
  return g_table[i].ptr == (uintptr_t)p && g_table[i].kind == (int)kind;
}

void
fc_handle_check(fc_kind kind, const void* p, const char* fn)
{
  size_t i;
  pthread_mutex_lock(&g_mu);
  bool live = live_locked(kind, p, &i);
  pthread_mutex_unlock(&g_mu);
  if (!live) {
    misuse(fn, p, kind, "not a live");
  }
}

void
fc_handle_remove(fc_kind kind, const void* p, const char* fn)
{
  size_t i;
  pthread_mutex_lock(&g_mu);
  bool live = live_locked(kind, p, &i);
  if (live) {
    g_table[i].ptr = 1; /* a tombstone keeps later probes going */
  }
  pthread_mutex_unlock(&g_mu);
  if (!live) {
    misuse(fn, p, kind, "deletes a deleted (or never created)");
  }
}
