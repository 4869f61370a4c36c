/* response.c - inference responses: creation, output allocation through the
 * caller's allocator, sending, and the TRITONSERVER_InferenceResponse API.
 * Each behaviour that imitates the real core says which ("Real core:"). */
#include "fake_core.h"

#include <stdlib.h>
#include <string.h>

#define RESP_CHECK(r)                                                    \
  do {                                                                   \
    if ((r) == NULL) {                                                   \
      return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "response is null"); \
    }                                                                    \
    fc_handle_check(FC_K_RESPONSE, (r), __func__);                       \
  } while (0)

TRITONSERVER_InferenceResponse*
fc_response_new(fc_factory* f)
{
  TRITONSERVER_InferenceResponse* r = fc_xcalloc(1, sizeof(*r));
  r->factory = fc_factory_ref(f);
  r->trace = fc_trace_ref_from(f);
  fc_model_response_new(f->model); /* the response holds its model */
  fc_count_inc(FC_K_RESPONSE);
  fc_handle_add(FC_K_RESPONSE, r);
  /* Real core (InferenceResponse's constructor): the allocator's start
   * function runs once per response, before its outputs are allocated; an
   * error it returns is logged. */
  TRITONSERVER_ResponseAllocator* a = f->allocator;
  if (a != NULL && a->start_fn != NULL) {
    fc_log_and_drop(a->start_fn(a, f->alloc_userp), "response allocation start failed");
  }
  return r;
}

/* Output reshape: the backend produced the reshape.shape form; present it in
 * the configured dims form (batch dimension kept). Real core:
 * InferenceResponse::Output::Reshape. */
static void
apply_output_reshape(fc_output* o, const fc_model* m)
{
  const fc_io* oc = fc_config_output(m->cfg, o->name);
  if (oc == NULL || !oc->has_reshape) {
    return;
  }
  bool has_batch = m->cfg->max_batch_size > 0;
  size_t off = has_batch ? 1 : 0;
  int64_t* vars = fc_xcalloc(oc->nreshape + 1, sizeof(int64_t));
  size_t nv = 0;
  for (size_t i = 0; i < oc->nreshape; ++i) {
    if (oc->reshape[i] == -1 && i + off < o->ndims) {
      vars[nv++] = o->shape[i + off];
    }
  }
  int64_t* shape = fc_xcalloc(oc->ndims + 2, sizeof(int64_t));
  size_t n = 0;
  if (has_batch && o->ndims > 0) {
    shape[n++] = o->shape[0];
  }
  size_t vi = 0;
  for (size_t i = 0; i < oc->ndims; ++i) {
    shape[n++] = (oc->dims[i] == -1) ? (vi < nv ? vars[vi++] : -1) : oc->dims[i];
  }
  free(vars);
  free(o->shape);
  o->shape = shape;
  o->ndims = n;
}

TRITONSERVER_Error*
fc_response_output(
    TRITONSERVER_InferenceResponse* r, const char* name,
    TRITONSERVER_DataType dtype, const int64_t* shape, size_t ndims,
    size_t byte_size, void** buffer)
{
  *buffer = NULL;
  if (r->noutputs == r->cap) {
    r->cap = r->cap ? r->cap * 2 : 4;
    r->outputs = fc_xrealloc(r->outputs, r->cap * sizeof(fc_output));
  }
  fc_output* o = &r->outputs[r->noutputs++];
  memset(o, 0, sizeof(*o));
  o->name = fc_strdup(name);
  o->dtype = dtype;
  o->ndims = ndims;
  o->shape = fc_xcalloc(ndims + 1, sizeof(int64_t));
  if (ndims) {
    memcpy(o->shape, shape, ndims * sizeof(int64_t));
  }
  o->memory_type = TRITONSERVER_MEMORY_CPU;
  apply_output_reshape(o, r->factory->model);

  TRITONSERVER_ResponseAllocator* a = r->factory->allocator;
  if (a == NULL || a->alloc_fn == NULL) {
    return fc_err(TRITONSERVER_ERROR_INTERNAL, "response allocator has no allocation function");
  }
  /* Real core (InferenceResponse::Output::AllocateDataBuffer): the
   * allocator is asked for the backend's preferred memory (the fake's
   * backends prefer CPU, id 0), then its buffer-attributes function, if set,
   * sees the buffer; an error of either becomes the response's error. */
  void* buf = NULL;
  void* buf_userp = NULL;
  TRITONSERVER_MemoryType actual_type = TRITONSERVER_MEMORY_CPU;
  int64_t actual_id = 0;
  TRITONSERVER_Error* err = a->alloc_fn(
      a, o->name, byte_size, TRITONSERVER_MEMORY_CPU, 0,
      r->factory->alloc_userp, &buf, &buf_userp, &actual_type, &actual_id);
  if (err != NULL) {
    return err; /* becomes the response's error */
  }
  if (buf == NULL && byte_size > 0) {
    return fc_err(
        TRITONSERVER_ERROR_INTERNAL,
        "response allocator returned a null buffer for output '%s' of %zu "
        "bytes",
        name, byte_size);
  }
  o->buffer = buf;
  fc_probe_output(buf);
  o->buffer_userp = buf_userp;
  o->byte_size = byte_size;
  o->memory_type = actual_type;
  o->memory_type_id = actual_id;
  if (buf != NULL) {
    fc_count_inc(FC_K_BUFFER);
  }
  if (a->buffer_attributes_fn != NULL) {
    TRITONSERVER_BufferAttributes ba = {actual_id, actual_type, NULL, byte_size};
    err = a->buffer_attributes_fn(a, o->name, &ba, r->factory->alloc_userp, buf_userp);
    if (err != NULL) {
      return err;
    }
  }
  if (actual_type == TRITONSERVER_MEMORY_GPU && byte_size > 0) {
    /* The model writes a host copy; it is moved to the GPU buffer with
     * cudaMemcpy when the response is sent. */
    o->staging = fc_xmalloc(byte_size);
    *buffer = o->staging;
    return NULL;
  }
  *buffer = buf;
  return NULL;
}

void
fc_response_send(
    TRITONSERVER_InferenceResponse* r, uint32_t flags, TRITONSERVER_Error* err)
{
  for (size_t i = 0; i < r->noutputs; ++i) {
    fc_output* o = &r->outputs[i];
    if (o->staging != NULL) {
      TRITONSERVER_Error* cerr = fc_gpu_copy(o->buffer, o->staging, o->byte_size);
      free(o->staging);
      o->staging = NULL;
      if (cerr != NULL && err == NULL) {
        err = cerr;
      } else {
        fc_err_free(cerr);
      }
    }
  }
  if (err != NULL) {
    /* Real core: the response owns its error (TRITONSERVER_InferenceResponseError
     * returns it; only the response's deletion frees it). */
    err->owned_by_response = true;
    r->error = err;
  }
  if (fc_trace_wants_tensors(r->trace)) {
    for (size_t i = 0; i < r->noutputs; ++i) {
      const fc_output* o = &r->outputs[i];
      fc_trace_tensor(
          r->trace, TRITONSERVER_TRACE_TENSOR_BACKEND_OUTPUT, o->name, o->dtype,
          o->buffer, o->buffer ? o->byte_size : 0, o->shape, o->ndims,
          o->memory_type, o->memory_type_id);
    }
  }
  /* Real core (InferenceResponse::Send): the complete callback runs on the
   * sending (backend) thread and takes ownership of the response. */
  fc_factory* f = r->factory;
  f->response_fn(r, flags, f->response_userp); /* caller owns r now */
}

void
fc_respond_error(fc_factory* f, TRITONSERVER_Error* err)
{
  fc_response_send(fc_response_new(f), TRITONSERVER_RESPONSE_COMPLETE_FINAL, err);
}

void
fc_response_destroy(TRITONSERVER_InferenceResponse* r)
{
  if (r == NULL) {
    return;
  }
  fc_handle_remove(FC_K_RESPONSE, r, "TRITONSERVER_InferenceResponseDelete");
  TRITONSERVER_ResponseAllocator* a = r->factory->allocator;
  if (a != NULL && a->deleted) {
    FC_LOG_ERROR("a response was deleted after its response allocator (a use after free)");
    fc_probe_misuse();
    a = NULL; /* its functions must not be called */
  }
  for (size_t i = 0; i < r->noutputs; ++i) {
    fc_output* o = &r->outputs[i];
    if (o->buffer != NULL) {
      TRITONSERVER_Error* err = NULL;
      if (a != NULL && a->release_fn != NULL) {
        err = a->release_fn(
            a, o->buffer, o->buffer_userp, o->byte_size, o->memory_type,
            o->memory_type_id);
      }
      if (err != NULL) {
        FC_LOG_ERROR(
            "failed to release buffer for output '%s': %s", o->name, err->msg);
        fc_err_free(err);
      }
      fc_count_dec(FC_K_BUFFER);
    }
    free(o->staging);
    free(o->name);
    free(o->shape);
  }
  free(r->outputs);
  fc_params_free(&r->params);
  fc_err_free(r->error);
  if (r->trace != NULL) {
    fc_trace_detach(r->trace, NULL); /* may be the trace's last holder */
  }
  fc_model* m = r->factory->model;
  fc_factory_unref(r->factory);
  free(r);
  fc_count_dec(FC_K_RESPONSE);
  fc_model_response_gone(m); /* may free an orphaned record */
}

/* ---- public API ---- */
/* Real core (InferenceResponse::Output's destructor): deleting a response
 * releases each output buffer through the allocator's release function, on
 * the deleting thread; a release error is logged. */
TRITONSERVER_Error*
TRITONSERVER_InferenceResponseDelete(TRITONSERVER_InferenceResponse* r)
{
  fc_response_destroy(r); /* release_fn runs on the calling thread */
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceResponseError(TRITONSERVER_InferenceResponse* r)
{
  RESP_CHECK(r);
  return r->error; /* owned by the response */
}

TRITONSERVER_Error*
TRITONSERVER_InferenceResponseModel(
    TRITONSERVER_InferenceResponse* r, const char** model_name,
    int64_t* model_version)
{
  RESP_CHECK(r);
  *model_name = r->factory->model->name;
  *model_version = r->factory->model->version;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceResponseId(
    TRITONSERVER_InferenceResponse* r, const char** request_id)
{
  RESP_CHECK(r);
  *request_id = r->factory->id;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceResponseParameterCount(
    TRITONSERVER_InferenceResponse* r, uint32_t* count)
{
  RESP_CHECK(r);
  *count = (uint32_t)r->params.n;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceResponseParameter(
    TRITONSERVER_InferenceResponse* r, const uint32_t index, const char** name,
    TRITONSERVER_ParameterType* type, const void** vvalue)
{
  RESP_CHECK(r);
  if (index >= r->params.n) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG,
        "out of bounds index %u: response has %zu parameters", index,
        r->params.n);
  }
  const TRITONSERVER_Parameter* p = &r->params.items[index];
  *name = p->name;
  *type = p->type;
  *vvalue = fc_param_value_ptr(p);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceResponseOutputCount(
    TRITONSERVER_InferenceResponse* r, uint32_t* count)
{
  RESP_CHECK(r);
  *count = (uint32_t)r->noutputs;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_InferenceResponseOutput(
    TRITONSERVER_InferenceResponse* r, const uint32_t index, const char** name,
    TRITONSERVER_DataType* datatype, const int64_t** shape, uint64_t* dim_count,
    const void** base, size_t* byte_size, TRITONSERVER_MemoryType* memory_type,
    int64_t* memory_type_id, void** userp)
{
  RESP_CHECK(r);
  if (index >= r->noutputs) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG,
        "out of bounds index %u: response has %zu outputs", index, r->noutputs);
  }
  const fc_output* o = &r->outputs[index];
  *name = o->name;
  *datatype = o->dtype;
  *shape = o->shape;
  *dim_count = o->ndims;
  *base = o->buffer;
  *byte_size = o->buffer ? o->byte_size : 0;
  *memory_type = o->memory_type;
  *memory_type_id = o->memory_type_id;
  *userp = o->buffer_userp;
  return NULL;
}

/* Real core: the label of class `class_index` (taken as 32 bits) of output `index` (labels.c);
 * INVALID_ARG only for an output index past the response's outputs. */
TRITONSERVER_Error*
TRITONSERVER_InferenceResponseOutputClassificationLabel(
    TRITONSERVER_InferenceResponse* inference_response, const uint32_t index,
    const size_t class_index, const char** label)
{
  RESP_CHECK(inference_response);
  if (index >= inference_response->noutputs) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG, "out of bounds index %u: response has %zu outputs", index,
        inference_response->noutputs);
  }
  *label = fc_class_label(
      inference_response->factory->model, inference_response->outputs[index].name,
      (uint32_t)class_index);
  return NULL;
}
