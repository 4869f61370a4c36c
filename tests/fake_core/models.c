/* models.c - the built-in "backends" identity and repeat, each imitating the real backend, and
 * the executor dispatch. Real backends: identity (each OUTPUTn a copy of INPUTn, its config
 * checks, the execute_delay_ms parameter) and repeat (decoupled: one response per element of
 * IN, DELAY ms apart, then FINAL alone; its config checks), named at each behaviour. */
#include "fake_core.h"

#include <stdlib.h>
#include <string.h>

static TRITONSERVER_Error*
bad_config(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

static TRITONSERVER_Error*
bad_config(const char* fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char* msg = fc_vfmt(fmt, ap);
  va_end(ap);
  TRITONSERVER_Error* e = fc_err(TRITONSERVER_ERROR_INVALID_ARG, "%s", msg);
  free(msg);
  return e;
}

static uint64_t
param_u64(const fc_config* c, const char* key)
{
  const char* v = fc_config_param(c, key);
  if (v == NULL || v[0] < '0' || v[0] > '9') {
    return 0;
  }
  return strtoull(v, NULL, 10);
}

/* ================================================================== */
/* identity: OUTPUTn = INPUTn                                           */
/* ================================================================== */
static TRITONSERVER_Error*
identity_validate(const fc_config* c)
{
  if (c->ninputs != c->noutputs) {
    return bad_config("model configuration must have equal input/output pairs");
  }
  for (size_t i = 0; i < c->ninputs; ++i) {
    if (strncmp(c->inputs[i].name, "INPUT", 5) != 0) {
      return bad_config(
          "expected input name to follow INPUT<index> pattern, got '%s'",
          c->inputs[i].name);
    }
    if (strncmp(c->outputs[i].name, "OUTPUT", 6) != 0) {
      return bad_config(
          "expected output name to follow OUTPUT<index> pattern, got '%s'",
          c->outputs[i].name);
    }
  }
  for (size_t i = 0; i < c->noutputs; ++i) {
    char* in_name = fc_fmt("INPUT%s", c->outputs[i].name + 6);
    const fc_io* in = fc_config_input(c, in_name);
    free(in_name);
    if (in == NULL) {
      return bad_config("expected input and output indices to match");
    }
    if (in->dtype != c->outputs[i].dtype) {
      return bad_config(
          "expected input and output datatype to match, got %s and %s",
          fc_config_dtype_name(in->dtype),
          fc_config_dtype_name(c->outputs[i].dtype));
    }
  }
  return NULL;
}

/* Zero tensor for an optional input that was not provided. */
static TRITONSERVER_Error*
identity_zero_output(
    TRITONSERVER_InferenceResponse* resp, const char* out_name,
    const fc_io* ci, int64_t batch_dim)
{
  const int64_t* dims = ci->has_reshape ? ci->reshape : ci->dims;
  size_t nd = ci->has_reshape ? ci->nreshape : ci->ndims;
  int64_t* shape = fc_xcalloc(nd + 2, sizeof(int64_t));
  size_t n = 0;
  if (batch_dim != 0) {
    shape[n++] = batch_dim;
  }
  int64_t count = 1;
  for (size_t i = 0; i < nd; ++i) {
    shape[n] = dims[i] == -1 ? 1 : dims[i];
    count *= shape[n++];
  }
  if (batch_dim != 0) {
    count *= batch_dim;
  }
  size_t esz = ci->dtype == TRITONSERVER_TYPE_BYTES
                   ? sizeof(uint32_t)
                   : TRITONSERVER_DataTypeByteSize(ci->dtype);
  size_t bytes = (size_t)count * esz;
  void* buf = NULL;
  TRITONSERVER_Error* err =
      fc_response_output(resp, out_name, ci->dtype, shape, n, bytes, &buf);
  free(shape);
  if (err == NULL && bytes) {
    memset(buf, 0, bytes);
  }
  return err;
}

static void
identity_execute(fc_model* m, TRITONSERVER_InferenceRequest* req)
{
  uint64_t delay = param_u64(m->cfg, "execute_delay_ms");
  if (delay) {
    fc_sched_sleep(m, NULL, delay);
  }
  fc_factory* f = req->factory;
  TRITONSERVER_InferenceResponse* resp = fc_response_new(f);
  TRITONSERVER_Error* err = NULL;

  int64_t batch_dim = 0;
  if (m->cfg->max_batch_size > 0 && req->inputs && req->inputs->nexec > 0) {
    batch_dim = req->inputs->exec_shape[0];
  }
  for (size_t i = 0; i < req->exec_outputs.n && !err; ++i) {
    const char* out_name = req->exec_outputs.items[i];
    char* in_name = fc_fmt("INPUT%s", out_name + 6);
    const fc_input* in = fc_request_find_input(req, in_name);
    if (in != NULL) {
      void* buf = NULL;
      size_t bytes = fc_input_total_bytes(in);
      err = fc_response_output(
          resp, out_name, in->dtype, in->exec_shape, in->nexec, bytes, &buf);
      if (err == NULL && bytes) {
        err = fc_input_gather(in, buf); /* BYTES and BF16 are copied raw */
      }
    } else {
      const fc_io* ci = fc_config_input(m->cfg, in_name);
      if (ci != NULL && ci->optional) {
        err = identity_zero_output(resp, out_name, ci, batch_dim);
      } else {
        err = fc_err(
            TRITONSERVER_ERROR_UNSUPPORTED, "failed to get input '%s'", in_name);
      }
    }
    free(in_name);
  }
  if (err == NULL) {
    /* The identity backend attaches these example parameters. */
    fc_params_add_string(&resp->params, "param0", "an example string parameter");
    fc_params_add_int(&resp->params, "param1", 42);
    fc_params_add_bool(&resp->params, "param2", false);
    fc_params_add_double(&resp->params, "param3", 123.123);
  }
  bool ok = (err == NULL);
  fc_response_send(resp, TRITONSERVER_RESPONSE_COMPLETE_FINAL, err);
  fc_request_release(req, ok); /* after the response, as the backend does */
}

/* ================================================================== */
/* shared helpers for the decoupled (streaming) models                  */
/* ================================================================== */
/* Ends a stream: error response + FINAL, like the backends' macros. */
static void
stream_fail(fc_factory* f, TRITONSERVER_InferenceResponse* partial,
            TRITONSERVER_Error* err)
{
  fc_response_destroy(partial); /* the real backends leak it */
  fc_respond_error(f, err);
}

static TRITONSERVER_Error*
cancelled_error(void)
{
  return fc_err(TRITONSERVER_ERROR_CANCELLED, "cancelled");
}

/* ================================================================== */
/* repeat: one response per element of IN, then FINAL alone            */
/* ================================================================== */
static TRITONSERVER_Error*
repeat_validate(const fc_config* c)
{
  if (c->max_batch_size != 0) {
    return bad_config(
        "repeat backend only supports models with max_batch_size == 0");
  }
  if (c->ninputs != 3) {
    return bad_config("expected 3 inputs, got %zu", c->ninputs);
  }
  if (c->noutputs != 2) {
    return bad_config("expected 2 outputs, got %zu", c->noutputs);
  }
  static const char* const in_names[3] = {"IN", "DELAY", "WAIT"};
  static const char* const in_pos[3] = {"first", "second", "third"};
  static const TRITONSERVER_DataType in_types[3] = {
      TRITONSERVER_TYPE_INT32, TRITONSERVER_TYPE_UINT32,
      TRITONSERVER_TYPE_UINT32};
  for (int i = 0; i < 3; ++i) {
    if (strcmp(c->inputs[i].name, in_names[i]) != 0) {
      return bad_config(
          "expected %s input tensor name to be %s, got %s", in_pos[i],
          in_names[i], c->inputs[i].name);
    }
  }
  if (strcmp(c->outputs[0].name, "OUT") != 0) {
    return bad_config(
        "expected first output tensor name to be OUT, got %s",
        c->outputs[0].name);
  }
  if (strcmp(c->outputs[1].name, "IDX") != 0) {
    return bad_config(
        "expected second output tensor name to be IDX, got %s",
        c->outputs[1].name);
  }
  for (int i = 0; i < 3; ++i) {
    if (c->inputs[i].dtype != in_types[i]) {
      return bad_config(
          "expected %s datatype to be %s, got %s", in_names[i],
          TRITONSERVER_DataTypeString(in_types[i]),
          fc_config_dtype_name(c->inputs[i].dtype));
    }
  }
  if (c->outputs[0].dtype != TRITONSERVER_TYPE_INT32) {
    return bad_config(
        "expected OUT datatype to be INT32, got %s",
        fc_config_dtype_name(c->outputs[0].dtype));
  }
  if (c->outputs[1].dtype != TRITONSERVER_TYPE_UINT32) {
    return bad_config(
        "expected IDX datatype to be UINT32, got %s",
        fc_config_dtype_name(c->outputs[1].dtype));
  }
  return NULL;
}

typedef struct {
  fc_model* model;
  fc_factory* factory;
  int32_t* in;
  uint32_t* delay;
  uint32_t count;
} repeat_stream;

static void
repeat_stream_main(void* p)
{
  repeat_stream* st = p;
  fc_model* m = st->model;
  fc_factory* f = st->factory;
  bool ended = false;
  for (uint32_t e = 0; e < st->count && !ended; ++e) {
    if (fc_sched_stream_stop(m, f) || fc_sched_sleep(m, f, st->delay[e])) {
      fc_respond_error(f, cancelled_error());
      ended = true;
      break;
    }
    TRITONSERVER_InferenceResponse* resp = fc_response_new(f);
    const int64_t one = 1;
    void* out_buf = NULL;
    void* idx_buf = NULL;
    TRITONSERVER_Error* err = fc_response_output(
        resp, "OUT", TRITONSERVER_TYPE_INT32, &one, 1, sizeof(int32_t), &out_buf);
    if (err == NULL) {
      err = fc_response_output(
          resp, "IDX", TRITONSERVER_TYPE_UINT32, &one, 1, sizeof(uint32_t),
          &idx_buf);
    }
    if (err != NULL) {
      stream_fail(f, resp, err);
      ended = true;
      break;
    }
    memcpy(out_buf, &st->in[e], sizeof(int32_t));
    memcpy(idx_buf, &e, sizeof(uint32_t));
    fc_response_send(resp, 0, NULL);
  }
  if (!ended) {
    fc_factory_send_flags(f, TRITONSERVER_RESPONSE_COMPLETE_FINAL);
  }
  fc_factory_unref(f);
  free(st->in);
  free(st->delay);
  free(st);
}

static void
repeat_execute(fc_model* m, TRITONSERVER_InferenceRequest* req)
{
  fc_factory* f = req->factory;
  const fc_input* in = fc_request_find_input(req, "IN");
  const fc_input* delay = fc_request_find_input(req, "DELAY");
  const fc_input* wait = fc_request_find_input(req, "WAIT");
  TRITONSERVER_Error* err = NULL;
  uint32_t wait_ms = 0;

  if (fc_input_total_bytes(wait) != sizeof(uint32_t)) {
    err = fc_err(TRITONSERVER_ERROR_INVALID_ARG, "unexpected size for WAIT input");
  } else if ((err = fc_input_gather(wait, &wait_ms)) == NULL) {
    bool same = in->nexec == delay->nexec;
    for (size_t i = 0; same && i < in->nexec; ++i) {
      same = in->exec_shape[i] == delay->exec_shape[i];
    }
    if (!same) {
      char* a = fc_dims_str(in->exec_shape, in->nexec);
      char* b = fc_dims_str(delay->exec_shape, delay->nexec);
      err = fc_err(
          TRITONSERVER_ERROR_INVALID_ARG,
          "expected IN and DELAY shape to match, got %s and %s", a, b);
      free(a);
      free(b);
    }
  }
  repeat_stream* st = NULL;
  if (err == NULL) {
    /* The backend copies IN and DELAY, so the request can be released
     * (after WAIT) while responses are still being produced. */
    st = fc_xcalloc(1, sizeof(*st));
    st->count = (uint32_t)(fc_input_total_bytes(in) / sizeof(int32_t));
    st->in = fc_xcalloc(st->count + 1, sizeof(int32_t));
    st->delay = fc_xcalloc(st->count + 1, sizeof(uint32_t));
    err = fc_input_gather(in, st->in);
    if (err == NULL) {
      err = fc_input_gather(delay, st->delay);
    }
  }
  if (err != NULL) {
    if (st != NULL) {
      free(st->in);
      free(st->delay);
      free(st);
    }
    fc_respond_error(f, err);
  } else {
    st->model = m;
    st->factory = fc_factory_ref(f);
    fc_sched_spawn_stream(m, repeat_stream_main, st);
  }
  fc_sched_sleep(m, NULL, wait_ms);
  fc_request_release(req, true); /* the backend always reports success */
}

/* ================================================================== */
static const fc_executor k_identity = {"identity", identity_validate, identity_execute};
static const fc_executor k_repeat = {"repeat", repeat_validate, repeat_execute};

const fc_executor*
fc_executor_for(const fc_config* cfg, TRITONSERVER_Error** err)
{
  const char* backend = cfg->backend ? cfg->backend : "";
  const fc_executor* ex = NULL;
  if (strcmp(backend, "identity") == 0) {
    ex = &k_identity;
  } else if (strcmp(backend, "repeat") == 0) {
    ex = &k_repeat;
  } else if (strcmp(backend, "python") == 0 && strcmp(cfg->name, "slow_load") == 0) {
    ex = &k_identity; /* tests/slow_models/slow_load: an identity model in Python */
  } else if (strcmp(backend, "python") == 0) {
    ex = fc_python_executor(cfg->name);
  } else {
    *err = fc_err(
        TRITONSERVER_ERROR_INVALID_ARG,
        "unable to find backend library for backend '%s', try specifying "
        "runtime on the model configuration.",
        backend);
    return NULL;
  }
  *err = ex->validate(cfg);
  return *err ? NULL : ex;
}
