/* probe.c - test-only records of what crosses the API, so tests can check zero-copy: the base
 * of the last input data appended (FAKECORE_LastInputBase) and the last buffer the response
 * allocator handed out (FAKECORE_LastOutputBuffer); how many times an object was used after what
 * it depends on was deleted (FAKECORE_MisuseCount); and the parameters, with their types, of the
 * last request handed to TRITONSERVER_ServerInferAsync (FAKECORE_LastRequestParameters) and its
 * timeout (FAKECORE_LastRequestTimeoutUs). */
#include "fake_core.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

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

static pthread_mutex_t g_params_mu = PTHREAD_MUTEX_INITIALIZER;
static char g_params[4096];
static char g_params_read[4096];
static _Atomic uint64_t g_timeout_us;

void
fc_probe_request(const fc_params* ps, uint64_t timeout_us)
{
  atomic_store(&g_timeout_us, timeout_us);
  char text[sizeof g_params];
  size_t used = 0;
  text[0] = '\0';
  for (size_t i = 0; i < ps->n && used < sizeof text; ++i) {
    const TRITONSERVER_Parameter* p = &ps->items[i];
    const char* sep = i == 0 ? "" : ";";
    int n = 0;
    switch (p->type) {
      case TRITONSERVER_PARAMETER_STRING:
        n = snprintf(text + used, sizeof text - used, "%s%s=STRING:%s", sep, p->name, p->str);
        break;
      case TRITONSERVER_PARAMETER_INT:
        n = snprintf(
            text + used, sizeof text - used, "%s%s=INT:%" PRId64, sep, p->name, p->i64);
        break;
      case TRITONSERVER_PARAMETER_BOOL:
        n = snprintf(
            text + used, sizeof text - used, "%s%s=BOOL:%s", sep, p->name,
            p->b ? "true" : "false");
        break;
      case TRITONSERVER_PARAMETER_DOUBLE:
        n = snprintf(text + used, sizeof text - used, "%s%s=DOUBLE:%.17g", sep, p->name, p->d);
        break;
      default:
        n = snprintf(text + used, sizeof text - used, "%s%s=BYTES", sep, p->name);
        break;
    }
    if (n < 0) break;
    used += (size_t)n;
  }
  pthread_mutex_lock(&g_params_mu);
  memcpy(g_params, text, sizeof text);
  pthread_mutex_unlock(&g_params_mu);
}

/* "name=TYPE:value;..." in the order the request's parameters were set (values: INT in decimal,
 * DOUBLE with 17 significant digits, BOOL true/false); "" before any request. The text stays
 * valid until the next call. */
FC_EXPORT const char*
FAKECORE_LastRequestParameters(void)
{
  pthread_mutex_lock(&g_params_mu);
  memcpy(g_params_read, g_params, sizeof g_params);
  pthread_mutex_unlock(&g_params_mu);
  return g_params_read;
}

/* The timeout in microseconds of the last request handed to ServerInferAsync (0: none). */
FC_EXPORT uint64_t
FAKECORE_LastRequestTimeoutUs(void)
{
  return atomic_load(&g_timeout_us);
}
