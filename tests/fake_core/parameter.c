/* parameter.c - TRITONSERVER_Parameter and internal parameter lists. Real
 * core (InferenceParameter): STRING values are copied, BYTES values are
 * referenced, not copied. */
#include "fake_core.h"

#include <stdlib.h>
#include <string.h>

TRITONSERVER_Parameter*
TRITONSERVER_ParameterNew(
    const char* name, const TRITONSERVER_ParameterType type, const void* value)
{
  if (value == NULL) {
    return NULL;
  }
  TRITONSERVER_Parameter* p = fc_xcalloc(1, sizeof(*p));
  p->type = type;
  switch (type) {
    case TRITONSERVER_PARAMETER_STRING:
      p->str = fc_strdup((const char*)value);
      p->byte_size = strlen(p->str);
      break;
    case TRITONSERVER_PARAMETER_INT:
      p->i64 = *(const int64_t*)value;
      p->byte_size = sizeof(int64_t);
      break;
    case TRITONSERVER_PARAMETER_BOOL:
      p->b = *(const bool*)value;
      p->byte_size = sizeof(bool);
      break;
    case TRITONSERVER_PARAMETER_DOUBLE:
      p->d = *(const double*)value;
      p->byte_size = sizeof(double);
      break;
    default:
      /* BYTES must go through ParameterBytesNew (the real core returns
       * nullptr here too). */
      free(p);
      return NULL;
  }
  p->name = fc_strdup(name);
  p->counted = true;
  fc_count_inc(FC_K_PARAMETER);
  return p;
}

TRITONSERVER_Parameter*
TRITONSERVER_ParameterBytesNew(
    const char* name, const void* byte_ptr, const uint64_t size)
{
  TRITONSERVER_Parameter* p = fc_xcalloc(1, sizeof(*p));
  p->name = fc_strdup(name);
  p->type = TRITONSERVER_PARAMETER_BYTES;
  p->bytes = byte_ptr; /* not copied, like the real core */
  p->byte_size = size;
  p->counted = true;
  fc_count_inc(FC_K_PARAMETER);
  return p;
}

void
TRITONSERVER_ParameterDelete(TRITONSERVER_Parameter* parameter)
{
  if (parameter == NULL) {
    return;
  }
  free(parameter->name);
  free(parameter->str);
  if (parameter->counted) {
    fc_count_dec(FC_K_PARAMETER);
  }
  free(parameter);
}

const void*
fc_param_value_ptr(const TRITONSERVER_Parameter* p)
{
  switch (p->type) {
    case TRITONSERVER_PARAMETER_STRING:
      return p->str;
    case TRITONSERVER_PARAMETER_INT:
      return &p->i64;
    case TRITONSERVER_PARAMETER_BOOL:
      return &p->b;
    case TRITONSERVER_PARAMETER_DOUBLE:
      return &p->d;
    case TRITONSERVER_PARAMETER_BYTES:
      return p->bytes;
  }
  return NULL;
}

static TRITONSERVER_Parameter*
params_push(fc_params* ps, const char* name, TRITONSERVER_ParameterType type)
{
  if (ps->n == ps->cap) {
    ps->cap = ps->cap ? ps->cap * 2 : 4;
    ps->items = fc_xrealloc(ps->items, ps->cap * sizeof(*ps->items));
  }
  TRITONSERVER_Parameter* p = &ps->items[ps->n++];
  memset(p, 0, sizeof(*p));
  p->name = fc_strdup(name);
  p->type = type;
  return p;
}

void
fc_params_add_string(fc_params* ps, const char* name, const char* value)
{
  TRITONSERVER_Parameter* p = params_push(ps, name, TRITONSERVER_PARAMETER_STRING);
  p->str = fc_strdup(value);
  p->byte_size = strlen(p->str);
}

void
fc_params_add_int(fc_params* ps, const char* name, int64_t value)
{
  TRITONSERVER_Parameter* p = params_push(ps, name, TRITONSERVER_PARAMETER_INT);
  p->i64 = value;
  p->byte_size = sizeof(int64_t);
}

void
fc_params_add_bool(fc_params* ps, const char* name, bool value)
{
  TRITONSERVER_Parameter* p = params_push(ps, name, TRITONSERVER_PARAMETER_BOOL);
  p->b = value;
  p->byte_size = sizeof(bool);
}

void
fc_params_add_double(fc_params* ps, const char* name, double value)
{
  TRITONSERVER_Parameter* p =
      params_push(ps, name, TRITONSERVER_PARAMETER_DOUBLE);
  p->d = value;
  p->byte_size = sizeof(double);
}

void
fc_params_free(fc_params* ps)
{
  for (size_t i = 0; i < ps->n; ++i) {
    free(ps->items[i].name);
    free(ps->items[i].str);
  }
  free(ps->items);
  ps->items = NULL;
  ps->n = 0;
  ps->cap = 0;
}
