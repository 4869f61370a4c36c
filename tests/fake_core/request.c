/* request.c - TRITONSERVER_InferenceRequest construction and accessors.
 * Real core (InferenceRequest): inputs, requested outputs, parameters and
 * callbacks are recorded as given; their checks against the model wait for
 * ServerInferAsync (validate.c), but for the duplicates and unknown names
 * InferenceRequest::AddOriginalInput and its kin refuse at once, with the
 * errors' "[request id: <id>] " prefix. */
#include "fake_core.h"

#include <stdlib.h>
#include <string.h>

#define REQ_CHECK(r)                                                    \
  do {                                                                  \
    if ((r) == NULL) {                                                  \
      return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "request is null"); \
    }                                                                   \
    fc_handle_check(FC_K_REQUEST, (r), __func__);                       \
  } while (0)

char*
fc_request_log_prefix(const TRITONSERVER_InferenceRequest* r)
{
  const char* id = (r->id && r->id[0]) ? r->id : "<id_unknown>";
  return fc_fmt("[request id: %s] ", id);
}

/* "<prefix><noun> '<name>' <tail>" like the real core's request errors. */
static TRITONSERVER_Error*
req_err(
    const TRITONSERVER_InferenceRequest* r, const char* noun, const char* name,
    const char* tail)
{
  char* prefix = fc_request_log_prefix(r);
  TRITONSERVER_Error* e = fc_err(
      TRITONSERVER_ERROR_INVALID_ARG, "%s%s '%s' %s", prefix, noun,
      name ? name : "", tail);
  free(prefix);
  return e;
}

const char*
fc_request_state_str(fc_request_state s)
{
  switch (s) {
    case FC_RS_INITIALIZED:
      return "INITIALIZED";
    case FC_RS_PENDING:
      return "PENDING";
    case FC_RS_EXECUTING:
      return "EXECUTING";
    case FC_RS_RELEASED:
      return "RELEASED";
    case FC_RS_FAILED_ENQUEUE:
      return "FAILED_ENQUEUE";
  }
  return "UNKNOWN";
}

fc_input*
fc_request_find_input(const TRITONSERVER_InferenceRequest* r, const char* name)
{
  for (fc_input* in = r->inputs; in; in = in->next) {
    if (strcmp(in->name, name) == 0) {
      return in;
    }
  }
  return NULL;
}

size_t
fc_input_total_bytes(const fc_input* in)
{
  size_t n = 0;
  for (size_t i = 0; i < in->data.n; ++i) {
    n += in->data.items[i].size;
  }
  return n;
}

TRITONSERVER_Error*
fc_input_gather(const fc_input* in, void* dst)
{
  char* p = dst;
  for (size_t i = 0; i < in->data.n; ++i) {
    const fc_buf* b = &in->data.items[i];
    if (b->size == 0) {
      continue;
    }
    if (b->memory_type == TRITONSERVER_MEMORY_GPU) {
      TRITONSERVER_Error* err = fc_gpu_copy(p, b->base, b->size);
      if (err) {
        return err;
      }
    } else {
      memcpy(p, b->base, b->size);
    }
    p += b->size;
  }
  return NULL;
}

static void
bufs_push(
    fc_bufs* b, const void* base, size_t size, TRITONSERVER_MemoryType mt,
    int64_t mid)
{
  if (b->n == b->cap) {
    b->cap = b->cap ? b->cap * 2 : 4;
    b->items = fc_xrealloc(b->items, b->cap * sizeof(fc_buf));
  }
  b->items[b->n].base = base;
  b->items[b->n].size = size;
  b->items[b->n].memory_type = mt;
  b->items[b->n].memory_type_id = mid;
  b->n++;
}

static void
input_clear_data(fc_input* in)
{
  free(in->data.items);
  memset(&in->data, 0, sizeof(in->data));
}

static void
input_free(fc_input* in)
{
  input_clear_data(in);
  free(in->name);
  free(in->shape);
  free(in->exec_shape);
  free(in);
}

static fc_input*
input_new(TRITONSERVER_InferenceRequest* r, const char* name)
{
  fc_input* in = fc_xcalloc(1, sizeof(*in));
  in->name = fc_strdup(name);
  fc_input** link = &r->inputs;
  while (*link) {
    link = &(*link)->next;
  }
  *link = in;
  return in;
}

/* ---- lifetime ---- */
TRITONSERVER_Error*
TRITONSERVER_InferenceRequestNew(
    TRITONSERVER_InferenceRequest** inference_request,
    TRITONSERVER_Server* server, const char* model_name,
    const int64_t model_version)
{
  if (server == NULL || model_name == NULL || inference_request == NULL) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "invalid argument");
  }
  fc_server* s = (fc_server*)server;
  fc_model* m = NULL;
  TRITONSERVER_Error* err = fc_server_get_model(s, model_name, model_version, &m);
  if (err) {
    return err;
  }
  TRITONSERVER_InferenceRequest* r = fc_xcalloc(1, sizeof(*r));
  r->server = s;
  r->model = m;
  r->requested_version = model_version;
  r->id = fc_strdup("");
  atomic_init(&r->state, FC_RS_INITIALIZED);
  /* Priority 0 maps to the model default (0 without priority levels). */
  r->priority = (uint64_t)m->cfg->default_priority_level;
  fc_count_inc(FC_K_REQUEST);
  fc_handle_add(FC_K_REQUEST, r);
  *inference_request = r;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestDelete(TRITONSERVER_InferenceRequest* r)
{
  if (r == NULL) {
    return NULL;
  }
  fc_handle_check(FC_K_REQUEST, r, __func__);
  int state = atomic_load(&r->state);
  if (state == FC_RS_PENDING || state == FC_RS_EXECUTING) {
    /* The real core would free memory its workers still use. */
    return fc_err(
        TRITONSERVER_ERROR_INTERNAL,
        "fake core: TRITONSERVER_InferenceRequestDelete called while the "
        "request is %s; the core owns it until the release callback",
        fc_request_state_str((fc_request_state)state));
  }
  fc_input* in = r->inputs;
  while (in) {
    fc_input* next = in->next;
    input_free(in);
    in = next;
  }
  free(r->id);
  free(r->corr_str);
  fc_strset_clear(&r->requested);
  fc_strset_clear(&r->exec_outputs);
  fc_params_free(&r->params);
  if (r->factory) {
    fc_factory_unref(r->factory);
  }
  fc_handle_remove(FC_K_REQUEST, r, __func__);
  free(r);
  fc_count_dec(FC_K_REQUEST);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestSetId(TRITONSERVER_InferenceRequest* r, const char* id)
{
  REQ_CHECK(r);
  free(r->id);
  r->id = fc_strdup(id);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestSetFlags(TRITONSERVER_InferenceRequest* r, uint32_t flags)
{
  REQ_CHECK(r);
  r->flags = flags;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestSetCorrelationId(
    TRITONSERVER_InferenceRequest* r, uint64_t correlation_id)
{
  REQ_CHECK(r);
  r->corr_is_string = false;
  r->corr_u64 = correlation_id;
  free(r->corr_str);
  r->corr_str = NULL;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestSetCorrelationIdString(
    TRITONSERVER_InferenceRequest* r, const char* correlation_id)
{
  REQ_CHECK(r);
  if (correlation_id == NULL) {
    correlation_id = "";
  }
  if (strlen(correlation_id) > 128) {
    return fc_err(
        TRITONSERVER_ERROR_UNSUPPORTED,
        "string correlation ID cannot be longer than 128 characters");
  }
  r->corr_is_string = true;
  r->corr_u64 = 0;
  free(r->corr_str);
  r->corr_str = fc_strdup(correlation_id);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestCancel(TRITONSERVER_InferenceRequest* r)
{
  REQ_CHECK(r);
  if (r->factory == NULL) {
    return fc_err(
        TRITONSERVER_ERROR_INTERNAL,
        "It is not possible to cancel an inference request before calling "
        "TRITONSERVER_InferAsync.");
  }
  atomic_store(&r->factory->cancelled, true);
  fc_model* m = r->factory->model;
  pthread_mutex_lock(&m->mu);
  pthread_cond_broadcast(&m->sleep_cv);
  pthread_mutex_unlock(&m->mu);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestSetPriorityUInt64(
    TRITONSERVER_InferenceRequest* r, uint64_t priority)
{
  REQ_CHECK(r);
  /* As the real core: 0 or a level above the model's maximum selects the
   * model's default level (models without priority levels keep 0). */
  const fc_config* c = r->model->cfg;
  if (priority == 0 || priority > (uint64_t)c->priority_levels) {
    r->priority = (uint64_t)c->default_priority_level;
  } else {
    r->priority = priority;
  }
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestSetPriority(
    TRITONSERVER_InferenceRequest* r, uint32_t priority)
{
  return TRITONSERVER_InferenceRequestSetPriorityUInt64(r, priority);
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestSetTimeoutMicroseconds(
    TRITONSERVER_InferenceRequest* r, uint64_t timeout_us)
{
  REQ_CHECK(r);
  r->timeout_us = timeout_us;
  return NULL;
}

/* ---- inputs ---- */
TRITONSERVER_Error*
TRITONSERVER_InferenceRequestAddInput(
    TRITONSERVER_InferenceRequest* r, const char* name,
    const TRITONSERVER_DataType datatype, const int64_t* shape,
    uint64_t dim_count)
{
  REQ_CHECK(r);
  if (name == NULL || (shape == NULL && dim_count > 0)) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "invalid input arguments");
  }
  if (fc_request_find_input(r, name)) {
    return req_err(r, "input", name, "already exists in request");
  }
  fc_input* in = input_new(r, name);
  in->dtype = datatype;
  in->ndims = (size_t)dim_count;
  in->shape = fc_xcalloc(in->ndims + 1, sizeof(int64_t));
  if (dim_count) {
    memcpy(in->shape, shape, in->ndims * sizeof(int64_t));
  }
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestRemoveInput(
    TRITONSERVER_InferenceRequest* r, const char* name)
{
  REQ_CHECK(r);
  for (fc_input** link = &r->inputs; *link; link = &(*link)->next) {
    if (strcmp((*link)->name, name ? name : "") == 0) {
      fc_input* in = *link;
      *link = in->next;
      input_free(in);
      return NULL;
    }
  }
  return req_err(r, "input", name, "does not exist in request");
}

/* Real core (InferenceRequest::MutableOriginalInput): data for an input not
 * added is INVALID_ARG "input '<name>' does not exist in request". */
static TRITONSERVER_Error*
find_for_data(TRITONSERVER_InferenceRequest* r, const char* name, fc_input** out)
{
  *out = fc_request_find_input(r, name ? name : "");
  if (*out == NULL) {
    return req_err(r, "input", name, "does not exist in request");
  }
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestAppendInputData(
    TRITONSERVER_InferenceRequest* r, const char* name, const void* base,
    size_t byte_size, TRITONSERVER_MemoryType memory_type,
    int64_t memory_type_id)
{
  REQ_CHECK(r);
  fc_input* in;
  TRITONSERVER_Error* err = find_for_data(r, name, &in);
  if (err) {
    return err;
  }
  if (byte_size > 0) { /* the caller's memory is referenced, not copied */
    bufs_push(&in->data, base, byte_size, memory_type, memory_type_id);
  }
  fc_probe_input(base);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestRemoveAllInputData(
    TRITONSERVER_InferenceRequest* r, const char* name)
{
  REQ_CHECK(r);
  fc_input* in;
  TRITONSERVER_Error* err = find_for_data(r, name, &in);
  if (err) {
    return err;
  }
  input_clear_data(in);
  return NULL;
}

/* ---- requested outputs ---- */
TRITONSERVER_Error*
TRITONSERVER_InferenceRequestAddRequestedOutput(
    TRITONSERVER_InferenceRequest* r, const char* name)
{
  REQ_CHECK(r);
  if (!fc_strset_add(&r->requested, name ? name : "")) {
    return req_err(r, "output", name, "already exists in request");
  }
  return NULL;
}

/* ---- callbacks ---- */
TRITONSERVER_Error*
TRITONSERVER_InferenceRequestSetReleaseCallback(
    TRITONSERVER_InferenceRequest* r,
    TRITONSERVER_InferenceRequestReleaseFn_t request_release_fn,
    void* request_release_userp)
{
  REQ_CHECK(r);
  r->release_fn = request_release_fn;
  r->release_userp = request_release_userp;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestSetResponseCallback(
    TRITONSERVER_InferenceRequest* r,
    TRITONSERVER_ResponseAllocator* response_allocator,
    void* response_allocator_userp,
    TRITONSERVER_InferenceResponseCompleteFn_t response_fn,
    void* response_userp)
{
  REQ_CHECK(r);
  r->allocator = response_allocator;
  r->alloc_userp = response_allocator_userp;
  r->response_fn = response_fn;
  r->response_userp = response_userp;
  return NULL;
}

/* ---- parameters ---- */
TRITONSERVER_Error*
TRITONSERVER_InferenceRequestSetStringParameter(
    TRITONSERVER_InferenceRequest* r, const char* key, const char* value)
{
  REQ_CHECK(r);
  fc_params_add_string(&r->params, key ? key : "", value ? value : "");
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestSetIntParameter(
    TRITONSERVER_InferenceRequest* r, const char* key, const int64_t value)
{
  REQ_CHECK(r);
  fc_params_add_int(&r->params, key ? key : "", value);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestSetBoolParameter(
    TRITONSERVER_InferenceRequest* r, const char* key, const bool value)
{
  REQ_CHECK(r);
  fc_params_add_bool(&r->params, key ? key : "", value);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceRequestSetDoubleParameter(
    TRITONSERVER_InferenceRequest* r, const char* key, const double value)
{
  REQ_CHECK(r);
  fc_params_add_double(&r->params, key ? key : "", value);
  return NULL;
}
