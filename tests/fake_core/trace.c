/* trace.c - TRITONSERVER_InferenceTrace: creation, accessors, activity and
 * tensor reports, and the references that keep a trace attached to a
 * request and to the responses made for it. When the last of those goes
 * the release callback runs (on whatever thread dropped it). Real core
 * (InferenceTrace, InferenceTraceProxy): the request and each response hold
 * the trace through a proxy whose destructor releases it; the last release
 * calls the release function, which owns the trace from then on. */
#include "fake_core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct TRITONSERVER_InferenceTrace {
  TRITONSERVER_InferenceTraceLevel level;
  uint64_t id;
  uint64_t parent_id;
  TRITONSERVER_InferenceTraceActivityFn_t activity_fn;
  TRITONSERVER_InferenceTraceTensorActivityFn_t tensor_fn;
  TRITONSERVER_InferenceTraceReleaseFn_t release_fn;
  void* userp;
  /* named by ServerInferAsync before the first report */
  char* model_name;
  int64_t model_version;
  char* request_id;
  int refs; /* attachments, guarded by g_attach_mu */
};

static atomic_uint_fast64_t g_next_id = 1;
/* Guards every trace's 'refs' and every factory's 'trace' pointer. */
static pthread_mutex_t g_attach_mu = PTHREAD_MUTEX_INITIALIZER;

#define TRACE_CHECK(t)                                                  \
  do {                                                                  \
    if ((t) == NULL) {                                                  \
      return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "trace is null");   \
    }                                                                   \
  } while (0)

/* MIN and MAX are older spellings of TIMESTAMPS. Real core:
 * TRITONSERVER_InferenceTraceNew and ...TensorNew rewrite them so. */
static TRITONSERVER_InferenceTraceLevel
normalize_level(TRITONSERVER_InferenceTraceLevel level)
{
  unsigned l = (unsigned)level;
  if (l & TRITONSERVER_TRACE_LEVEL_MIN) {
    l = (l & ~(unsigned)TRITONSERVER_TRACE_LEVEL_MIN) |
        TRITONSERVER_TRACE_LEVEL_TIMESTAMPS;
  }
  if (l & TRITONSERVER_TRACE_LEVEL_MAX) {
    l = (l & ~(unsigned)TRITONSERVER_TRACE_LEVEL_MAX) |
        TRITONSERVER_TRACE_LEVEL_TIMESTAMPS;
  }
  return (TRITONSERVER_InferenceTraceLevel)l;
}

static TRITONSERVER_InferenceTrace*
trace_new(
    TRITONSERVER_InferenceTraceLevel level, uint64_t parent_id,
    TRITONSERVER_InferenceTraceActivityFn_t activity_fn,
    TRITONSERVER_InferenceTraceTensorActivityFn_t tensor_fn,
    TRITONSERVER_InferenceTraceReleaseFn_t release_fn, void* userp)
{
  TRITONSERVER_InferenceTrace* t = fc_xcalloc(1, sizeof(*t));
  t->level = normalize_level(level);
  t->id = atomic_fetch_add(&g_next_id, 1);
  t->parent_id = parent_id;
  t->activity_fn = activity_fn;
  t->tensor_fn = tensor_fn;
  t->release_fn = release_fn;
  t->userp = userp;
  t->model_name = fc_strdup("");
  t->request_id = fc_strdup("");
  fc_count_inc(FC_K_TRACE);
  return t;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceNew(
    TRITONSERVER_InferenceTrace** trace, TRITONSERVER_InferenceTraceLevel level,
    uint64_t parent_id, TRITONSERVER_InferenceTraceActivityFn_t activity_fn,
    TRITONSERVER_InferenceTraceReleaseFn_t release_fn, void* trace_userp)
{
  if (trace == NULL) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "trace is null");
  }
  *trace = trace_new(level, parent_id, activity_fn, NULL, release_fn, trace_userp);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceTensorNew(
    TRITONSERVER_InferenceTrace** trace, TRITONSERVER_InferenceTraceLevel level,
    uint64_t parent_id, TRITONSERVER_InferenceTraceActivityFn_t activity_fn,
    TRITONSERVER_InferenceTraceTensorActivityFn_t tensor_activity_fn,
    TRITONSERVER_InferenceTraceReleaseFn_t release_fn, void* trace_userp)
{
  if (trace == NULL) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "trace is null");
  }
  *trace = trace_new(
      level, parent_id, activity_fn, tensor_activity_fn, release_fn,
      trace_userp);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceDelete(TRITONSERVER_InferenceTrace* trace)
{
  if (trace == NULL) {
    return NULL;
  }
  free(trace->model_name);
  free(trace->request_id);
  free(trace);
  fc_count_dec(FC_K_TRACE);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceId(TRITONSERVER_InferenceTrace* trace, uint64_t* id)
{
  TRACE_CHECK(trace);
  *id = trace->id;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceParentId(
    TRITONSERVER_InferenceTrace* trace, uint64_t* parent_id)
{
  TRACE_CHECK(trace);
  *parent_id = trace->parent_id;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceModelName(
    TRITONSERVER_InferenceTrace* trace, const char** model_name)
{
  TRACE_CHECK(trace);
  *model_name = trace->model_name;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceModelVersion(
    TRITONSERVER_InferenceTrace* trace, int64_t* model_version)
{
  TRACE_CHECK(trace);
  *model_version = trace->model_version;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceRequestId(
    TRITONSERVER_InferenceTrace* trace, const char** request_id)
{
  TRACE_CHECK(trace);
  *request_id = trace->request_id;
  return NULL;
}

/* ------------------------------------------------------------------ */
/* reports                                                              */
/* ------------------------------------------------------------------ */
void
fc_trace_report(
    TRITONSERVER_InferenceTrace* t, TRITONSERVER_InferenceTraceActivity activity,
    uint64_t ns)
{
  /* Real core (InferenceTrace::Report): timestamps only at the TIMESTAMPS
   * level, on the thread where the activity happens. */
  if (t != NULL && (t->level & TRITONSERVER_TRACE_LEVEL_TIMESTAMPS) != 0 &&
      t->activity_fn != NULL) {
    t->activity_fn(t, activity, ns, t->userp);
  }
}

void
fc_trace_tensor(
    TRITONSERVER_InferenceTrace* t, TRITONSERVER_InferenceTraceActivity activity,
    const char* name, TRITONSERVER_DataType dtype, const void* base,
    size_t byte_size, const int64_t* shape, uint64_t dim_count,
    TRITONSERVER_MemoryType memory_type, int64_t memory_type_id)
{
  /* Real core (InferenceTrace::ReportTensor): tensors only at the TENSORS
   * level and with a tensor activity function. */
  if (t != NULL && (t->level & TRITONSERVER_TRACE_LEVEL_TENSORS) != 0 &&
      t->tensor_fn != NULL) {
    t->tensor_fn(
        t, activity, name, dtype, base, byte_size, shape, dim_count,
        memory_type, memory_type_id, t->userp);
  }
}

bool
fc_trace_wants_tensors(const TRITONSERVER_InferenceTrace* t)
{
  return t != NULL && (t->level & TRITONSERVER_TRACE_LEVEL_TENSORS) != 0 &&
         t->tensor_fn != NULL;
}

/* ------------------------------------------------------------------ */
/* attachment                                                           */
/* ------------------------------------------------------------------ */
void
fc_trace_attach(
    TRITONSERVER_InferenceTrace* t, fc_factory* f, const char* model,
    int64_t version, const char* request_id)
{
  free(t->model_name);
  t->model_name = fc_strdup(model);
  t->model_version = version;
  free(t->request_id);
  t->request_id = fc_strdup(request_id ? request_id : "");
  pthread_mutex_lock(&g_attach_mu);
  t->refs = 1; /* the request's */
  f->trace = t;
  pthread_mutex_unlock(&g_attach_mu);
}

TRITONSERVER_InferenceTrace*
fc_trace_ref_from(fc_factory* f)
{
  pthread_mutex_lock(&g_attach_mu);
  TRITONSERVER_InferenceTrace* t = f->trace;
  if (t != NULL) {
    t->refs++;
  }
  pthread_mutex_unlock(&g_attach_mu);
  return t;
}

void
fc_trace_detach(TRITONSERVER_InferenceTrace* t, fc_factory* f)
{
  pthread_mutex_lock(&g_attach_mu);
  if (f != NULL && f->trace == t) {
    f->trace = NULL; /* later responses are not traced */
  }
  bool last = (--t->refs == 0);
  pthread_mutex_unlock(&g_attach_mu);
  if (last && t->release_fn != NULL) {
    /* The callee owns the trace from here on and usually deletes it. */
    t->release_fn(t, t->userp);
  }
}
