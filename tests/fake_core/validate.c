/* validate.c - request normalization and validation at InferAsync time,
 * following the order and wording of the real core's Normalize(). */
#include "fake_core.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const TRITONSERVER_InferenceRequest* r;
  const fc_config* cfg;
  const char* model;
  char* prefix;
} vctx;

static TRITONSERVER_Error*
verr(vctx* v, bool with_prefix, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

static TRITONSERVER_Error*
verr(vctx* v, bool with_prefix, const char* fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char* msg = fc_vfmt(fmt, ap);
  va_end(ap);
  TRITONSERVER_Error* e = fc_err(
      TRITONSERVER_ERROR_INVALID_ARG, "%s%s", with_prefix ? v->prefix : "", msg);
  free(msg);
  return e;
}

static size_t
count_inputs(const TRITONSERVER_InferenceRequest* r)
{
  size_t n = 0;
  for (const fc_input* in = r->inputs; in; in = in->next) {
    n++;
  }
  return n;
}

static size_t
required_inputs(const fc_config* c)
{
  size_t n = 0;
  for (size_t i = 0; i < c->ninputs; ++i) {
    n += c->inputs[i].optional ? 0 : 1;
  }
  return n;
}

static const fc_input*
find_exec_input(const TRITONSERVER_InferenceRequest* r, const char* name)
{
  for (const fc_input* in = r->inputs; in; in = in->next) {
    if (strcmp(in->name, name) == 0) {
      return in;
    }
  }
  return NULL;
}

/* The real core's "expected N inputs but got M ..." error. */
static TRITONSERVER_Error*
input_count_error(vctx* v)
{
  const fc_config* c = v->cfg;
  fc_sb missing, given;
  fc_sb_init(&missing);
  fc_sb_init(&given);
  fc_sb_putc(&missing, '[');
  for (size_t i = 0; i < c->ninputs; ++i) {
    if (!c->inputs[i].optional && !find_exec_input(v->r, c->inputs[i].name)) {
      fc_sb_printf(&missing, "'%s',", c->inputs[i].name);
    }
  }
  missing.data[--missing.len] = '\0'; /* drop the last char, as the core */
  fc_sb_putc(&missing, ']');
  size_t n = count_inputs(v->r);
  if (n == 0) {
    fc_sb_puts(&given, "[]");
  } else {
    fc_sb_putc(&given, '[');
    for (const fc_input* in = v->r->inputs; in; in = in->next) {
      fc_sb_printf(&given, in->next ? "'%s'," : "'%s'", in->name);
    }
    fc_sb_putc(&given, ']');
  }
  size_t req = required_inputs(c);
  TRITONSERVER_Error* e;
  if (c->ninputs == req) {
    e = verr(
        v, true,
        "expected %zu inputs but got %zu inputs for model '%s'. Got input(s) "
        "%s, but missing required input(s) %s. Please provide all required "
        "input(s).",
        c->ninputs, n, v->model, given.data, missing.data);
  } else {
    e = verr(
        v, true,
        "expected number of inputs between %zu and %zu but got %zu inputs for "
        "model '%s'. Got input(s) %s, but missing required input(s) %s. "
        "Please provide all required input(s).",
        req, c->ninputs, n, v->model, given.data, missing.data);
  }
  fc_sb_free(&missing);
  fc_sb_free(&given);
  return e;
}

static TRITONSERVER_Error*
get_config_input(vctx* v, const fc_input* in, const fc_io** out)
{
  *out = fc_config_input(v->cfg, in->name);
  if (*out == NULL) {
    return verr(
        v, false, "unexpected inference input '%s' for model '%s'",
        in->name, v->model);
  }
  return NULL;
}

static TRITONSERVER_Error*
validate_bytes(vctx* v, const fc_input* in)
{
  const char* name = in->name;
  int64_t element_count = 1;
  for (size_t i = 0; i < in->nexec; ++i) {
    element_count *= in->exec_shape[i];
  }
  int64_t checked = 0;
  size_t remaining_elem = 0;
  size_t next = 0;
  const char* buf = NULL;
  size_t remaining_buf = 0;
  while (remaining_buf || next < in->data.n) {
    if (!remaining_buf) {
      const fc_buf* b = &in->data.items[next++];
      buf = b->base;
      remaining_buf = b->size;
      if (b->memory_type == TRITONSERVER_MEMORY_GPU) {
        return NULL; /* the real core leaves GPU strings to the backend */
      }
    }
    if (!remaining_elem) {
      if (remaining_buf < sizeof(uint32_t)) {
        return verr(
            v, true,
            "incomplete string length indicator for inference input '%s' for "
            "model '%s', expecting %zu bytes but only %zu bytes available. "
            "Please make sure the string length indicator is in one buffer.",
            name, v->model, sizeof(uint32_t), remaining_buf);
      }
      uint32_t len;
      memcpy(&len, buf, sizeof(len));
      remaining_elem = len;
      checked++;
      if (checked > element_count) {
        return verr(
            v, true,
            "unexpected number of string elements %lld for inference input "
            "'%s' for model '%s', expecting %lld",
            (long long)checked, name, v->model, (long long)element_count);
      }
      buf += sizeof(uint32_t);
      remaining_buf -= sizeof(uint32_t);
    }
    if (remaining_buf >= remaining_elem) {
      buf += remaining_elem;
      remaining_buf -= remaining_elem;
      remaining_elem = 0;
    } else {
      remaining_elem -= remaining_buf;
      remaining_buf = 0;
    }
  }
  if (next != in->data.n) {
    return verr(
        v, true, "expected %zu buffers for inference input '%s' for model "
        "'%s', got %zu", in->data.n, name, v->model, next);
  }
  if (checked != element_count) {
    return verr(
        v, true,
        "expected %lld string elements for inference input '%s' for model "
        "'%s', got %lld",
        (long long)element_count, name, v->model, (long long)checked);
  }
  return NULL;
}

static TRITONSERVER_Error*
check_input(vctx* v, fc_input* in, uint64_t batch_size, const int64_t* dims,
            size_t ndims)
{
  const fc_config* c = v->cfg;
  const char* name = in->name;
  const fc_io* ci;
  TRITONSERVER_Error* err = get_config_input(v, in, &ci);
  if (err) {
    return err;
  }
  if (in->dtype != ci->dtype) {
    return verr(
        v, true, "inference input '%s' data-type is '%s', but model '%s' "
        "expects '%s'", name, TRITONSERVER_DataTypeString(in->dtype), v->model,
        TRITONSERVER_DataTypeString(ci->dtype));
  }

  /* shape against the configuration */
  bool match = (ci->ndims == ndims);
  for (size_t i = 0; match && i < ndims; ++i) {
    if (dims[i] == -1) {
      char* got = fc_dims_str(in->shape, in->ndims);
      err = verr(
          v, true, "All input dimensions should be specified for input '%s' "
          "for model '%s', got %s", name, v->model, got);
      free(got);
      return err;
    }
    if (ci->dims[i] != -1 && ci->dims[i] != dims[i]) {
      match = false;
    }
  }
  if (!match) {
    size_t nfull = ci->ndims + (c->max_batch_size > 0 ? 1 : 0);
    int64_t* full = fc_xcalloc(nfull + 1, sizeof(int64_t));
    size_t k = 0;
    if (c->max_batch_size > 0) {
      full[k++] = -1;
    }
    for (size_t i = 0; i < ci->ndims; ++i) {
      full[k++] = ci->dims[i];
    }
    char* want = fc_dims_str(full, nfull);
    char* got = fc_dims_str(in->shape, in->ndims);
    err = verr(
        v, true, "unexpected shape for input '%s' for model '%s'. Expected "
        "%s, got %s. %s", name, v->model, want, got,
        c->max_batch_size > 0
            ? "NOTE: Setting a non-zero max_batch_size in the model config "
              "requires a batch dimension to be prepended to each input "
              "shape. If you want to specify the full shape including the "
              "batch dim in your input dims config, try setting "
              "max_batch_size to zero. See the model configuration docs for "
              "more info on max_batch_size."
            : "");
    free(full);
    free(want);
    free(got);
    return err;
  }

  /* apply a reshape, then rebuild the shape with the batch dimension */
  int64_t* shaped = NULL;
  size_t nshaped = 0;
  if (ci->has_reshape) {
    shaped = fc_xcalloc(ci->nreshape + 1, sizeof(int64_t));
    size_t var = 0;
    for (size_t i = 0; i < ci->nreshape; ++i) {
      if (ci->reshape[i] == -1) {
        while (var < ci->ndims && ci->dims[var] != -1) {
          var++;
        }
        shaped[nshaped++] = var < ndims ? dims[var] : -1;
        var++;
      } else {
        shaped[nshaped++] = ci->reshape[i];
      }
    }
  } else {
    shaped = fc_xcalloc(ndims + 1, sizeof(int64_t));
    if (ndims) {
      memcpy(shaped, dims, ndims * sizeof(int64_t));
    }
    nshaped = ndims;
  }
  free(in->exec_shape);
  in->exec_shape = fc_xcalloc(nshaped + 2, sizeof(int64_t));
  in->nexec = 0;
  if (batch_size != 0 && !ci->is_shape_tensor) {
    in->exec_shape[in->nexec++] = (int64_t)batch_size;
  }
  for (size_t i = 0; i < nshaped; ++i) {
    in->exec_shape[in->nexec++] = shaped[i];
  }
  free(shaped);

  /* byte size of the appended data */
  if (in->dtype == TRITONSERVER_TYPE_BYTES) {
    return validate_bytes(v, in);
  }
  const int64_t* bdims = ci->is_shape_tensor ? in->shape : in->exec_shape;
  size_t nb = ci->is_shape_tensor ? in->ndims : in->nexec;
  int64_t count = 1;
  for (size_t i = 0; i < nb; ++i) {
    if (bdims[i] < 0) {
      char* d = fc_dims_str(bdims, nb);
      err = verr(
          v, false, "tensor '%s' contains an invalid dimension in shape %s",
          name, d);
      free(d);
      return err;
    }
    count *= bdims[i];
  }
  int64_t expected = count * (int64_t)TRITONSERVER_DataTypeByteSize(in->dtype);
  size_t got = fc_input_total_bytes(in);
  if (got > LLONG_MAX || (int64_t)got != expected) {
    return verr(
        v, true, "input byte size mismatch for input '%s' for model '%s'. "
        "Expected %lld, got %zu", name, v->model, (long long)expected, got);
  }
  return NULL;
}

TRITONSERVER_Error*
fc_request_normalize(TRITONSERVER_InferenceRequest* r)
{
  vctx v = {r, r->model->cfg, r->model->name, fc_request_log_prefix(r)};
  const fc_config* c = v.cfg;
  TRITONSERVER_Error* err = NULL;

  /* requested outputs (all outputs when none are requested) */
  fc_strset_clear(&r->exec_outputs);
  if (!err) {
    if (r->requested.n == 0) {
      for (size_t i = 0; i < c->noutputs; ++i) {
        fc_strset_add(&r->exec_outputs, c->outputs[i].name);
      }
    } else {
      for (size_t i = 0; i < r->requested.n && !err; ++i) {
        if (fc_config_output(c, r->requested.items[i]) == NULL) {
          err = verr(
              &v, false, "unexpected inference output '%s' for model '%s'",
              r->requested.items[i], v.model);
        }
      }
      fc_strset_copy(&r->exec_outputs, &r->requested);
    }
  }

  size_t n = count_inputs(r);
  if (!err && (n > c->ninputs || n < required_inputs(c))) {
    err = input_count_error(&v);
  }

  /* batch size */
  uint64_t batch = 0;
  for (fc_input* in = r->inputs; in && !err; in = in->next) {
    const fc_io* ci;
    err = get_config_input(&v, in, &ci);
    if (err || c->max_batch_size == 0 || ci->is_shape_tensor) {
      continue;
    }
    if (in->ndims == 0) {
      err = verr(
          &v, true, "input '%s' has no shape but model requires batch "
          "dimension for '%s'", in->name, v.model);
    } else if (batch == 0) {
      batch = (uint64_t)in->shape[0];
    } else if ((uint64_t)in->shape[0] != batch) {
      err = verr(
          &v, true, "input '%s' batch size does not match other inputs for "
          "'%s'", in->name, v.model);
    }
  }
  if (!err && (int64_t)batch > c->max_batch_size) {
    err = verr(
        &v, true, "inference request batch-size must be <= %lld for '%s'",
        (long long)c->max_batch_size, v.model);
  }

  for (fc_input* in = r->inputs; in && !err; in = in->next) {
    const fc_io* ci = fc_config_input(c, in->name);
    bool strip = c->max_batch_size != 0 && ci && !ci->is_shape_tensor;
    const int64_t* dims = strip ? in->shape + 1 : in->shape;
    size_t nd = strip ? in->ndims - 1 : in->ndims;
    err = check_input(&v, in, batch, dims, nd);
  }

  /* The real core leaves a missing required input (when the count still
   * fits because optional ones were given) to the backend; report it here
   * with the core's count wording. The python backend hands such a request
   * to the model as it is (get_input_tensor_by_name gives None): there the
   * model's executor sees it. */
  bool python = c->backend != NULL && strcmp(c->backend, "python") == 0;
  for (size_t i = 0; i < c->ninputs && !err && !python; ++i) {
    if (!c->inputs[i].optional && !find_exec_input(r, c->inputs[i].name)) {
      err = input_count_error(&v);
    }
  }

  if (!err) {
    r->batch_size = batch;
  }
  free(v.prefix);
  return err;
}
