/* infer.c - TRITONSERVER_ServerInferAsync, response factories and request
 * release. Real core (InferenceServer::InferAsync,
 * InferenceRequest::PrepareForInference, InferenceRequest::Release): a
 * request is normalized and queued on the caller's thread; its responses
 * come from a factory made for each inference; it goes back to its owner
 * through the release callback, after its statistics are recorded. */
#include "fake_core.h"

#include <stdlib.h>

fc_factory*
fc_factory_ref(fc_factory* f)
{
  atomic_fetch_add(&f->refs, 1);
  return f;
}

void
fc_factory_unref(fc_factory* f)
{
  if (f != NULL && atomic_fetch_sub(&f->refs, 1) == 1) {
    free(f->id);
    free(f);
  }
}

void
fc_factory_send_flags(fc_factory* f, uint32_t flags)
{
  /* A final flag without a response, as the core's SendFlags does. */
  f->response_fn(NULL, flags, f->response_userp);
}

static fc_factory*
factory_new(TRITONSERVER_InferenceRequest* r)
{
  fc_factory* f = fc_xcalloc(1, sizeof(*f));
  atomic_init(&f->refs, 1);
  atomic_init(&f->cancelled, false);
  f->model = r->model;
  f->id = fc_strdup(r->id);
  f->allocator = r->allocator;
  f->alloc_userp = r->alloc_userp;
  f->response_fn = r->response_fn;
  f->response_userp = r->response_userp;
  return f;
}

void
fc_request_release(TRITONSERVER_InferenceRequest* r, bool success)
{
  fc_model* m = r->model;
  uint64_t now = fc_now_ns();
  fc_stats_record(
      m, success, r->exec_start_ns - r->queue_start_ns, now - r->exec_start_ns,
      r->batch_size ? r->batch_size : 1, r->fail_reason);
  TRITONSERVER_InferenceTrace* t = r->trace;
  if (t != NULL) {
    /* The backend's statistics report, then the end of the request, both
     * before the release callback (as the core layers them). */
    r->trace = NULL;
    if (r->executed) {
      fc_trace_report(t, TRITONSERVER_TRACE_COMPUTE_START, r->exec_start_ns);
      fc_trace_report(t, TRITONSERVER_TRACE_COMPUTE_INPUT_END, r->exec_start_ns);
      fc_trace_report(t, TRITONSERVER_TRACE_COMPUTE_OUTPUT_START, now);
      fc_trace_report(t, TRITONSERVER_TRACE_COMPUTE_END, now);
    }
    fc_trace_report(t, TRITONSERVER_TRACE_REQUEST_END, fc_now_ns());
    fc_trace_detach(t, r->factory);
  }
  TRITONSERVER_InferenceRequestReleaseFn_t fn = r->release_fn;
  void* userp = r->release_userp;
  atomic_store(&r->state, FC_RS_RELEASED);
  /* Ownership goes back to the caller; 'r' may be deleted inside fn. */
  fn(r, TRITONSERVER_REQUEST_RELEASE_ALL, userp);
  fc_sched_inflight_dec(m);
}

static TRITONSERVER_Error*
prefixed(TRITONSERVER_InferenceRequest* r, TRITONSERVER_Error_Code code,
         const char* msg)
{
  char* prefix = fc_request_log_prefix(r);
  TRITONSERVER_Error* e = fc_err(code, "%s%s", prefix, msg);
  free(prefix);
  return e;
}

TRITONSERVER_Error*
TRITONSERVER_ServerInferAsync(
    TRITONSERVER_Server* server, TRITONSERVER_InferenceRequest* r,
    TRITONSERVER_InferenceTrace* trace)
{
  if (server == NULL || r == NULL) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "server and request must not be null");
  }
  fc_server* s = (fc_server*)server;

  int state = atomic_load(&r->state);
  if (state == FC_RS_PENDING || state == FC_RS_EXECUTING) {
    char* prefix = fc_request_log_prefix(r);
    TRITONSERVER_Error* e = fc_err(
        TRITONSERVER_ERROR_INTERNAL,
        "%sInvalid request state transition from %s to INITIALIZED", prefix,
        fc_request_state_str((fc_request_state)state));
    free(prefix);
    return e;
  }
  /* The real core would crash on these; the fake reports them. */
  if (r->release_fn == NULL) {
    return prefixed(
        r, TRITONSERVER_ERROR_INVALID_ARG,
        "inference request has no release callback, call "
        "TRITONSERVER_InferenceRequestSetReleaseCallback first");
  }
  if (r->response_fn == NULL || r->allocator == NULL) {
    return prefixed(
        r, TRITONSERVER_ERROR_INVALID_ARG,
        "inference request has no response callback or allocator, call "
        "TRITONSERVER_InferenceRequestSetResponseCallback first");
  }

  /* A fresh response factory for every inference, as PrepareForInference. */
  if (r->factory) {
    fc_factory_unref(r->factory);
  }
  r->factory = factory_new(r);

  TRITONSERVER_Error* err = fc_request_normalize(r);
  if (err) {
    return err; /* the trace, if any, stays the caller's */
  }
  atomic_store(&r->state, FC_RS_INITIALIZED);
  fc_probe_request(&r->params, r->timeout_us);
  r->executed = false;
  r->fail_reason = FC_FAIL_BACKEND;

  if (trace != NULL) {
    fc_trace_attach(trace, r->factory, r->model->name, r->model->version, r->id);
    r->trace = trace;
  }

  pthread_mutex_lock(&s->mu);
  fc_server_state st = s->state;
  pthread_mutex_unlock(&s->mu);
  if (st != FC_SS_READY && st != FC_SS_EXITING) {
    err = fc_err(TRITONSERVER_ERROR_UNAVAILABLE, "Server not ready");
  } else {
    fc_trace_report(r->trace, TRITONSERVER_TRACE_REQUEST_START, fc_now_ns());
    atomic_store(&r->state, FC_RS_PENDING);
    err = fc_sched_enqueue(r->model, r);
    if (err) {
      atomic_store(&r->state, FC_RS_FAILED_ENQUEUE);
    }
  }
  if (err) {
    /* Refused after the trace was attached: it is released here, on the
     * caller's thread, and the request goes back to the caller. */
    if (r->trace != NULL) {
      TRITONSERVER_InferenceTrace* t = r->trace;
      r->trace = NULL;
      fc_trace_detach(t, r->factory);
    }
    return err;
  }
  return NULL; /* the core owns the request until it is released */
}
