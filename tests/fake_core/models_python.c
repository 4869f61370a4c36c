/* models_python.c - models of the python backend, imitated by model name:
 *   add_sub       OUTPUT0 = INPUT0 + INPUT1, OUTPUT1 = INPUT0 - INPUT1
 *   error_model   every request answers an INTERNAL error
 *   sleep_stream  decoupled: COUNT responses, DELAY_MS apart, then FINAL
 *   tiny_llm, tiny_trtllm, word_stream, tiny_embed
 *                 the word echo and embedding models of the OpenAI front
 *                 end's tests (models_llm.c, models_embed.c)
 *   any other     a model.py the fake cannot run: one response without
 *                 outputs per request
 * Each imitates the model.py of the same name in tests/models run by the
 * real python backend (its outputs, errors and decoupled responses); like
 * the python backend, only requested outputs are returned. */
#include "fake_core.h"

#include <stdlib.h>
#include <string.h>

/* ================================================================== */
/* add_sub (python backend): OUTPUT0 = a + b, OUTPUT1 = a - b           */
/* ================================================================== */
static TRITONSERVER_Error*
add_sub_validate(const fc_config* c)
{
  const fc_io* in0 = fc_config_input(c, "INPUT0");
  const fc_io* in1 = fc_config_input(c, "INPUT1");
  const fc_io* out0 = fc_config_output(c, "OUTPUT0");
  const fc_io* out1 = fc_config_output(c, "OUTPUT1");
  if (!in0 || !in1 || !out0 || !out1) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG,
        "add_sub expects inputs INPUT0, INPUT1 and outputs OUTPUT0, OUTPUT1");
  }
  TRITONSERVER_DataType dt = in0->dtype;
  if (in1->dtype != dt || out0->dtype != dt || out1->dtype != dt ||
      (dt != TRITONSERVER_TYPE_FP32 && dt != TRITONSERVER_TYPE_FP64 &&
       dt != TRITONSERVER_TYPE_INT32 && dt != TRITONSERVER_TYPE_INT64)) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG,
        "fake core: add_sub supports one datatype among FP32, FP64, INT32, "
        "INT64 for all of its tensors");
  }
  return NULL;
}

static void
add_sub_compute(
    TRITONSERVER_DataType dt, const void* a, const void* b, void* sum,
    void* diff, size_t n)
{
  for (size_t i = 0; i < n; ++i) {
    switch (dt) {
      case TRITONSERVER_TYPE_FP32:
        ((float*)sum)[i] = ((const float*)a)[i] + ((const float*)b)[i];
        ((float*)diff)[i] = ((const float*)a)[i] - ((const float*)b)[i];
        break;
      case TRITONSERVER_TYPE_FP64:
        ((double*)sum)[i] = ((const double*)a)[i] + ((const double*)b)[i];
        ((double*)diff)[i] = ((const double*)a)[i] - ((const double*)b)[i];
        break;
      case TRITONSERVER_TYPE_INT32:
        ((int32_t*)sum)[i] = (int32_t)((uint32_t)((const int32_t*)a)[i] +
                                       (uint32_t)((const int32_t*)b)[i]);
        ((int32_t*)diff)[i] = (int32_t)((uint32_t)((const int32_t*)a)[i] -
                                        (uint32_t)((const int32_t*)b)[i]);
        break;
      default:
        ((int64_t*)sum)[i] = (int64_t)((uint64_t)((const int64_t*)a)[i] +
                                       (uint64_t)((const int64_t*)b)[i]);
        ((int64_t*)diff)[i] = (int64_t)((uint64_t)((const int64_t*)a)[i] -
                                        (uint64_t)((const int64_t*)b)[i]);
        break;
    }
  }
}

static void
add_sub_execute(fc_model* m, TRITONSERVER_InferenceRequest* req)
{
  FC_UNUSED(m);
  TRITONSERVER_InferenceResponse* resp = fc_response_new(req->factory);
  TRITONSERVER_Error* err = NULL;
  const fc_input* a = fc_request_find_input(req, "INPUT0");
  const fc_input* b = fc_request_find_input(req, "INPUT1");
  size_t bytes_a = fc_input_total_bytes(a), bytes_b = fc_input_total_bytes(b);
  if (bytes_a != bytes_b) {
    err = fc_err(
        TRITONSERVER_ERROR_INVALID_ARG,
        "add_sub: INPUT0 and INPUT1 must have the same number of elements");
  }
  void *va = NULL, *vb = NULL, *vs = NULL, *vd = NULL;
  if (err == NULL) {
    size_t esz = TRITONSERVER_DataTypeByteSize(a->dtype);
    size_t n = bytes_a / esz;
    va = fc_xmalloc(bytes_a);
    vb = fc_xmalloc(bytes_a);
    vs = fc_xmalloc(bytes_a);
    vd = fc_xmalloc(bytes_a);
    err = fc_input_gather(a, va);
    if (err == NULL) {
      err = fc_input_gather(b, vb);
    }
    if (err == NULL) {
      add_sub_compute(a->dtype, va, vb, vs, vd, n);
    }
    const char* names[2] = {"OUTPUT0", "OUTPUT1"};
    void* data[2] = {vs, vd};
    for (int k = 0; k < 2 && !err; ++k) {
      if (!fc_strset_has(&req->exec_outputs, names[k])) {
        continue; /* the python backend drops outputs not requested */
      }
      void* buf = NULL;
      err = fc_response_output(
          resp, names[k], a->dtype, a->exec_shape, a->nexec, bytes_a, &buf);
      if (err == NULL && bytes_a) {
        memcpy(buf, data[k], bytes_a);
      }
    }
  }
  free(va);
  free(vb);
  free(vs);
  free(vd);
  bool ok = (err == NULL);
  fc_response_send(resp, TRITONSERVER_RESPONSE_COMPLETE_FINAL, err);
  fc_request_release(req, ok);
}

/* ================================================================== */
/* error_model: "error_model: this model always fails" (INTERNAL)       */
/* ================================================================== */
static TRITONSERVER_Error*
error_model_validate(const fc_config* c)
{
  FC_UNUSED(c);
  return NULL;
}

static void
error_model_execute(fc_model* m, TRITONSERVER_InferenceRequest* req)
{
  FC_UNUSED(m);
  /* pb_utils.TritonError defaults to TRITONSERVER_ERROR_INTERNAL */
  fc_respond_error(
      req->factory, fc_err(TRITONSERVER_ERROR_INTERNAL,
                           "error_model: this model always fails"));
  fc_request_release(req, false);
}

/* ================================================================== */
/* sleep_stream: decoupled, COUNT responses DELAY_MS apart              */
/* ================================================================== */
static TRITONSERVER_Error*
sleep_stream_validate(const fc_config* c)
{
  const fc_io* count = fc_config_input(c, "COUNT");
  const fc_io* delay = fc_config_input(c, "DELAY_MS");
  const fc_io* out = fc_config_output(c, "OUT");
  if (!count || !delay || !out || count->dtype != TRITONSERVER_TYPE_INT32 ||
      delay->dtype != TRITONSERVER_TYPE_INT32 ||
      out->dtype != TRITONSERVER_TYPE_INT32) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG,
        "sleep_stream expects INT32 inputs COUNT, DELAY_MS and INT32 output OUT");
  }
  return NULL;
}

typedef struct {
  fc_model* model;
  fc_factory* factory;
  int32_t count;
  int32_t delay_ms;
  bool want_out;
} sleep_stream_state;

static void
sleep_stream_main(void* p)
{
  sleep_stream_state* st = p;
  fc_model* m = st->model;
  fc_factory* f = st->factory;
  bool ended = false;
  for (int32_t i = 0; i < st->count; ++i) {
    /* As the Python model: asyncio.sleep() is not cut short by a cancellation,
     * which is read after each sleep (only the fake's teardown cuts it). */
    fc_sched_sleep(m, NULL, st->delay_ms > 0 ? (uint64_t)st->delay_ms : 0);
    if (fc_sched_stream_stop(m, f)) {
      fc_respond_error(
          f, fc_err(TRITONSERVER_ERROR_CANCELLED, "request cancelled"));
      ended = true;
      break;
    }
    TRITONSERVER_InferenceResponse* resp = fc_response_new(f);
    if (st->want_out) {
      const int64_t one = 1;
      void* buf = NULL;
      TRITONSERVER_Error* err = fc_response_output(
          resp, "OUT", TRITONSERVER_TYPE_INT32, &one, 1, sizeof(int32_t), &buf);
      if (err != NULL) {
        fc_response_destroy(resp); /* end the stream with the error */
        fc_respond_error(f, err);
        ended = true;
        break;
      }
      memcpy(buf, &i, sizeof(int32_t));
    }
    fc_params_add_int(&resp->params, "index", i);
    fc_params_add_bool(&resp->params, "last", i == st->count - 1);
    fc_params_add_string(&resp->params, "source", "sleep_stream");
    fc_response_send(resp, 0, NULL);
  }
  if (!ended) {
    fc_factory_send_flags(f, TRITONSERVER_RESPONSE_COMPLETE_FINAL);
  }
  fc_factory_unref(f);
  free(st);
}

static void
sleep_stream_execute(fc_model* m, TRITONSERVER_InferenceRequest* req)
{
  const fc_input* count = fc_request_find_input(req, "COUNT");
  const fc_input* delay = fc_request_find_input(req, "DELAY_MS");
  sleep_stream_state* st = fc_xcalloc(1, sizeof(*st));
  TRITONSERVER_Error* err = fc_input_gather(count, &st->count);
  if (err == NULL) {
    err = fc_input_gather(delay, &st->delay_ms);
  }
  if (err != NULL) {
    free(st);
    fc_respond_error(req->factory, err);
  } else {
    /* async execute: the stream runs on its own; the request is released
     * once its inputs were read, so requests run concurrently. */
    st->model = m;
    st->factory = fc_factory_ref(req->factory);
    st->want_out = fc_strset_has(&req->exec_outputs, "OUT");
    fc_sched_spawn_stream(m, sleep_stream_main, st);
  }
  fc_request_release(req, true);
}

/* ================================================================== */
/* any other name: an empty successful response per request             */
/* ================================================================== */
static TRITONSERVER_Error*
generic_validate(const fc_config* c)
{
  FC_UNUSED(c);
  return NULL;
}

static void
generic_execute(fc_model* m, TRITONSERVER_InferenceRequest* req)
{
  FC_UNUSED(m);
  fc_response_send(
      fc_response_new(req->factory), TRITONSERVER_RESPONSE_COMPLETE_FINAL, NULL);
  fc_request_release(req, true);
}

/* ================================================================== */
static const fc_executor k_generic = {
    "python:generic", generic_validate, generic_execute};
static const fc_executor k_add_sub = {
    "python:add_sub", add_sub_validate, add_sub_execute};
static const fc_executor k_error_model = {
    "python:error_model", error_model_validate, error_model_execute};
static const fc_executor k_sleep_stream = {
    "python:sleep_stream", sleep_stream_validate, sleep_stream_execute};

const fc_executor*
fc_python_executor(const char* model_name)
{
  if (strcmp(model_name, "add_sub") == 0) {
    return &k_add_sub;
  }
  if (strcmp(model_name, "error_model") == 0) {
    return &k_error_model;
  }
  if (strcmp(model_name, "sleep_stream") == 0) {
    return &k_sleep_stream;
  }
  const fc_executor* ex = fc_llm_executor(model_name);
  if (ex == NULL) {
    ex = fc_embed_executor(model_name);
  }
  if (ex == NULL) {
    ex = fc_tool_executor(model_name);
  }
  return ex != NULL ? ex : &k_generic;
}
