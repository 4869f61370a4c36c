/* util.c - allocation, strings, string builder, sorted string sets, time. (The fake core's own:
 * nothing here imitates the real core.) */
#include "fake_core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

_Thread_local int fc_core_thread = 0;

void*
fc_xmalloc(size_t n)
{
  void* p = malloc(n ? n : 1);
  if (p == NULL) {
    fprintf(stderr, "fake core: out of memory\n");
    abort();
  }
  return p;
}

void*
fc_xcalloc(size_t n, size_t size)
{
  void* p = calloc(n ? n : 1, size ? size : 1);
  if (p == NULL) {
    fprintf(stderr, "fake core: out of memory\n");
    abort();
  }
  return p;
}

void*
fc_xrealloc(void* p, size_t n)
{
  void* q = realloc(p, n ? n : 1);
  if (q == NULL) {
    fprintf(stderr, "fake core: out of memory\n");
    abort();
  }
  return q;
}

char*
fc_strdup(const char* s)
{
  return fc_strndup(s ? s : "", s ? strlen(s) : 0);
}

char*
fc_strndup(const char* s, size_t n)
{
  char* d = fc_xmalloc(n + 1);
  if (n) {
    memcpy(d, s, n);
  }
  d[n] = '\0';
  return d;
}

char*
fc_vfmt(const char* fmt, va_list ap)
{
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) {
    return fc_strdup("");
  }
  char* out = fc_xmalloc((size_t)n + 1);
  vsnprintf(out, (size_t)n + 1, fmt, ap);
  return out;
}

char*
fc_fmt(const char* fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char* s = fc_vfmt(fmt, ap);
  va_end(ap);
  return s;
}

/* ---- string builder ---- */
void
fc_sb_init(fc_sb* sb)
{
  sb->data = NULL;
  sb->len = 0;
  sb->cap = 0;
}

void
fc_sb_free(fc_sb* sb)
{
  free(sb->data);
  fc_sb_init(sb);
}

static void
sb_reserve(fc_sb* sb, size_t extra)
{
  size_t need = sb->len + extra + 1;
  if (need <= sb->cap) {
    return;
  }
  size_t cap = sb->cap ? sb->cap : 64;
  while (cap < need) {
    cap *= 2;
  }
  sb->data = fc_xrealloc(sb->data, cap);
  sb->cap = cap;
}

void
fc_sb_putn(fc_sb* sb, const char* s, size_t n)
{
  sb_reserve(sb, n);
  if (n) {
    memcpy(sb->data + sb->len, s, n);
  }
  sb->len += n;
  sb->data[sb->len] = '\0';
}

void
fc_sb_puts(fc_sb* sb, const char* s)
{
  fc_sb_putn(sb, s, strlen(s));
}

void
fc_sb_putc(fc_sb* sb, char c)
{
  fc_sb_putn(sb, &c, 1);
}

void
fc_sb_printf(fc_sb* sb, const char* fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char* s = fc_vfmt(fmt, ap);
  va_end(ap);
  fc_sb_puts(sb, s);
  free(s);
}

char*
fc_sb_take(fc_sb* sb)
{
  if (sb->data == NULL) {
    return fc_strdup("");
  }
  char* out = sb->data;
  fc_sb_init(sb);
  return out;
}

char*
fc_dims_str(const int64_t* dims, size_t n)
{
  fc_sb sb;
  fc_sb_init(&sb);
  fc_sb_putc(&sb, '[');
  for (size_t i = 0; i < n; ++i) {
    fc_sb_printf(&sb, i ? ",%lld" : "%lld", (long long)dims[i]);
  }
  fc_sb_putc(&sb, ']');
  return fc_sb_take(&sb);
}

/* ---- time ---- */
uint64_t
fc_now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void
fc_sleep_ns(uint64_t ns)
{
  struct timespec ts = {
      .tv_sec = (time_t)(ns / 1000000000ull), .tv_nsec = (long)(ns % 1000000000ull)};
  nanosleep(&ts, NULL);
}

uint64_t
fc_wall_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000ull + (uint64_t)ts.tv_nsec / 1000000ull;
}

void
fc_cond_init_mono(pthread_cond_t* cv)
{
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(cv, &attr);
  pthread_condattr_destroy(&attr);
}

/* ---- sorted string set ---- */
static size_t
strset_lower_bound(const fc_strset* s, const char* v, bool* found)
{
  size_t lo = 0, hi = s->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(s->items[mid], v);
    if (c < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  *found = (lo < s->n) && (strcmp(s->items[lo], v) == 0);
  return lo;
}

bool
fc_strset_add(fc_strset* s, const char* v)
{
  bool found;
  size_t pos = strset_lower_bound(s, v, &found);
  if (found) {
    return false;
  }
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 4;
    s->items = fc_xrealloc(s->items, s->cap * sizeof(char*));
  }
  memmove(s->items + pos + 1, s->items + pos, (s->n - pos) * sizeof(char*));
  s->items[pos] = fc_strdup(v);
  s->n++;
  return true;
}

bool
fc_strset_remove(fc_strset* s, const char* v)
{
  bool found;
  size_t pos = strset_lower_bound(s, v, &found);
  if (!found) {
    return false;
  }
  free(s->items[pos]);
  memmove(s->items + pos, s->items + pos + 1, (s->n - pos - 1) * sizeof(char*));
  s->n--;
  return true;
}

bool
fc_strset_has(const fc_strset* s, const char* v)
{
  bool found;
  strset_lower_bound(s, v, &found);
  return found;
}

void
fc_strset_clear(fc_strset* s)
{
  for (size_t i = 0; i < s->n; ++i) {
    free(s->items[i]);
  }
  free(s->items);
  s->items = NULL;
  s->n = 0;
  s->cap = 0;
}

void
fc_strset_copy(fc_strset* dst, const fc_strset* src)
{
  fc_strset_clear(dst);
  for (size_t i = 0; i < src->n; ++i) {
    fc_strset_add(dst, src->items[i]);
  }
}
