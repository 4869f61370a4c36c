/* response_reader.c - reads one inference response into the response record in one call: the
 * response's error, its outputs (with copies of their names, shapes and small data), model, id
 * and parameters. What it does and the layout are in ffi/native/response_record.ts, whose constants the
 * compiler receives (TRITONFFI_RECORD_*, TRITONFFI_OUT_*, TRITONFFI_PARAM_*: recordDefines()).
 * The x86-64 reader (ffi/native/x86_64/reader.ts) is the same function in machine code, for Deno
 * and Node.
 *
 * Compiled at run time by Bun's cc() (TinyCC; ffi/native/response_reader.ts). Triton's functions are
 * given once by tritonffi_reader_configure (their addresses in the loaded library). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "types.h"

typedef TF_ERROR* (*error_fn)(TF_RESPONSE* r);
typedef TF_ERROR* (*count_fn)(TF_RESPONSE* r, uint32_t* count);
typedef TF_ERROR* (*output_fn)(TF_RESPONSE* r, uint32_t index, const char** name, uint32_t* dtype,
                               const int64_t** shape, uint64_t* dims, const void** base,
                               size_t* size, uint32_t* memory_type, int64_t* memory_type_id,
                               void** userp);
typedef TF_ERROR* (*model_fn)(TF_RESPONSE* r, const char** name, int64_t* version);
typedef TF_ERROR* (*id_fn)(TF_RESPONSE* r, const char** id);
typedef TF_ERROR* (*param_fn)(TF_RESPONSE* r, uint32_t index, const char** name, uint32_t* type,
                              const void** value);

static error_fn response_error;
static count_fn output_count;
static output_fn output;
static model_fn model;
static id_fn id;
static count_fn param_count;
static param_fn param;

void tritonffi_reader_configure(void* e, void* oc, void* o, void* m, void* i, void* pc, void* p) {
  response_error = (error_fn)e;
  output_count = (count_fn)oc;
  output = (output_fn)o;
  model = (model_fn)m;
  id = (id_fn)i;
  param_count = (count_fn)pc;
  param = (param_fn)p;
}

#define AT(rec, offset, type) ((type*)((rec) + (offset)))

enum { GPU = 2, STRING = 0, INT = 1, BOOL = 2, DOUBLE = 3 };

/* Copies the string at `src` (up to its NUL, at most `cap` bytes: no NUL within them means too
 * long); NULL copies as "". */
static void copy_string(uint8_t* dst, const char* src, size_t cap) {
  if (src) memccpy(dst, src, 0, cap);
  else dst[0] = 0;
}

/* 0: read (RESPONSE_ERROR may be set); 1: a call failed, its error is in CALL_ERROR. */
int tritonffi_read_response(TF_RESPONSE* r, uint8_t* rec) {
  TF_ERROR* e;
  *AT(rec, TRITONFFI_RECORD_CALL_ERROR, TF_ERROR*) = NULL;
  e = response_error(r);
  *AT(rec, TRITONFFI_RECORD_RESPONSE_ERROR, TF_ERROR*) = e;
  if (e) return 0;

  uint32_t* count = AT(rec, TRITONFFI_RECORD_OUTPUT_COUNT, uint32_t);
  if ((e = output_count(r, count))) goto failed;
  uint64_t data = TRITONFFI_RECORD_DATA;
  uint32_t n = *count < TRITONFFI_MAX_OUTPUTS ? *count : TRITONFFI_MAX_OUTPUTS;
  for (uint32_t i = 0; i < n; i++) {
    uint8_t* o = rec + TRITONFFI_RECORD_OUTPUTS + i * TRITONFFI_RECORD_OUTPUT_SIZE;
    e = output(r, i, AT(o, TRITONFFI_OUT_NAME, const char*), AT(o, TRITONFFI_OUT_DATATYPE, uint32_t),
               AT(o, TRITONFFI_OUT_SHAPE, const int64_t*), AT(o, TRITONFFI_OUT_DIM_COUNT, uint64_t),
               AT(o, TRITONFFI_OUT_BASE, const void*), AT(o, TRITONFFI_OUT_BYTE_SIZE, size_t),
               AT(o, TRITONFFI_OUT_MEMORY_TYPE, uint32_t),
               AT(o, TRITONFFI_OUT_MEMORY_TYPE_ID, int64_t), AT(o, TRITONFFI_OUT_USERP, void*));
    if (e) goto failed;
    copy_string(o + TRITONFFI_OUT_NAME_COPY, *AT(o, TRITONFFI_OUT_NAME, const char*),
                TRITONFFI_RECORD_NAME_CAP);
    uint64_t dims = *AT(o, TRITONFFI_OUT_DIM_COUNT, uint64_t);
    if (dims <= TRITONFFI_MAX_DIMS) {
      memcpy(o + TRITONFFI_OUT_SHAPE_COPY, *AT(o, TRITONFFI_OUT_SHAPE, const int64_t*), dims * 8);
    }
    uint64_t size = *AT(o, TRITONFFI_OUT_BYTE_SIZE, size_t);
    *AT(o, TRITONFFI_OUT_DATA, uint64_t) = 0;
    if (*AT(o, TRITONFFI_OUT_MEMORY_TYPE, uint32_t) != GPU && size <= TRITONFFI_DATA_LIMIT &&
        data + size <= TRITONFFI_RECORD_BYTES) {
      memcpy(rec + data, *AT(o, TRITONFFI_OUT_BASE, const void*), size);
      *AT(o, TRITONFFI_OUT_DATA, uint64_t) = data;
      data = (data + size + 7) & ~(uint64_t)7;
    }
  }

  if ((e = model(r, AT(rec, TRITONFFI_RECORD_MODEL_NAME, const char*),
                 AT(rec, TRITONFFI_RECORD_MODEL_VERSION, int64_t))))
    goto failed;
  copy_string(rec + TRITONFFI_RECORD_MODEL_COPY, *AT(rec, TRITONFFI_RECORD_MODEL_NAME, const char*),
              TRITONFFI_RECORD_STRING_CAP);
  if ((e = id(r, AT(rec, TRITONFFI_RECORD_ID, const char*)))) goto failed;
  copy_string(rec + TRITONFFI_RECORD_ID_COPY, *AT(rec, TRITONFFI_RECORD_ID, const char*),
              TRITONFFI_RECORD_STRING_CAP);

  count = AT(rec, TRITONFFI_RECORD_PARAM_COUNT, uint32_t);
  if ((e = param_count(r, count))) goto failed;
  n = *count < TRITONFFI_MAX_PARAMS ? *count : TRITONFFI_MAX_PARAMS;
  for (uint32_t i = 0; i < n; i++) {
    uint8_t* p = rec + TRITONFFI_RECORD_PARAMS + i * TRITONFFI_RECORD_PARAM_SIZE;
    e = param(r, i, AT(p, TRITONFFI_PARAM_NAME, const char*), AT(p, TRITONFFI_PARAM_TYPE, uint32_t),
              AT(p, TRITONFFI_PARAM_VALUE, const void*));
    if (e) goto failed;
    copy_string(p + TRITONFFI_PARAM_NAME_COPY, *AT(p, TRITONFFI_PARAM_NAME, const char*),
                TRITONFFI_RECORD_NAME_CAP);
    const void* value = *AT(p, TRITONFFI_PARAM_VALUE, const void*);
    uint32_t type = *AT(p, TRITONFFI_PARAM_TYPE, uint32_t);
    if (type == STRING) {
      copy_string(p + TRITONFFI_PARAM_STRING_COPY, value, TRITONFFI_RECORD_VALUE_CAP);
    } else if (!value) {
      *AT(p, TRITONFFI_PARAM_SCALAR, uint64_t) = 0;
    } else if (type == BOOL) {
      *AT(p, TRITONFFI_PARAM_SCALAR, uint64_t) = *(const uint8_t*)value;
    } else if (type == INT || type == DOUBLE) {
      *AT(p, TRITONFFI_PARAM_SCALAR, uint64_t) = *(const uint64_t*)value;
    }
  }
  return 0;

failed:
  *AT(rec, TRITONFFI_RECORD_CALL_ERROR, TF_ERROR*) = e;
  return 1;
}
