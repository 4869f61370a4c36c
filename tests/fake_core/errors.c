/* errors.c - TRITONSERVER_Error objects. Real core (TritonServerError): a
 * code and a copied message; TRITONSERVER_ErrorNew copies msg. */
#include "fake_core.h"

#include <stdio.h>
#include <stdlib.h>

static TRITONSERVER_Error*
err_new_owned(TRITONSERVER_Error_Code code, char* msg)
{
  TRITONSERVER_Error* e = fc_xcalloc(1, sizeof(*e));
  e->code = code;
  e->msg = msg;
  e->owned_by_response = false;
  fc_count_inc(FC_K_ERROR);
  return e;
}

TRITONSERVER_Error*
TRITONSERVER_ErrorNew(TRITONSERVER_Error_Code code, const char* msg)
{
  return err_new_owned(code, fc_strdup(msg));
}

TRITONSERVER_Error*
fc_err(TRITONSERVER_Error_Code code, const char* fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char* msg = fc_vfmt(fmt, ap);
  va_end(ap);
  return err_new_owned(code, msg);
}

TRITONSERVER_Error*
fc_unsupported(const char* fn)
{
  return fc_err(
      TRITONSERVER_ERROR_UNSUPPORTED, "fake core: %s is not implemented", fn);
}

void
fc_err_free(TRITONSERVER_Error* e)
{
  if (e == NULL) {
    return;
  }
  free(e->msg);
  free(e);
  fc_count_dec(FC_K_ERROR);
}

void
TRITONSERVER_ErrorDelete(TRITONSERVER_Error* error)
{
  if (error == NULL) {
    return;
  }
  if (error->owned_by_response) {
    /* The header documents the response's error as owned by the response.
     * Deleting it here would lead to a double free; ignore it loudly. */
    fprintf(
        stderr,
        "fake core: TRITONSERVER_ErrorDelete called on an error owned by an "
        "inference response; ignored\n");
    return;
  }
  fc_err_free(error);
}

TRITONSERVER_Error_Code
TRITONSERVER_ErrorCode(TRITONSERVER_Error* error)
{
  return error->code;
}

/* Same words as the real core. CANCELLED has no entry there, so the real
 * library answers "<invalid code>" for it; so do we. */
const char*
fc_code_string(TRITONSERVER_Error_Code code)
{
  switch (code) {
    case TRITONSERVER_ERROR_UNKNOWN:
      return "Unknown";
    case TRITONSERVER_ERROR_INTERNAL:
      return "Internal";
    case TRITONSERVER_ERROR_NOT_FOUND:
      return "Not found";
    case TRITONSERVER_ERROR_INVALID_ARG:
      return "Invalid argument";
    case TRITONSERVER_ERROR_UNAVAILABLE:
      return "Unavailable";
    case TRITONSERVER_ERROR_UNSUPPORTED:
      return "Unsupported";
    case TRITONSERVER_ERROR_ALREADY_EXISTS:
      return "Already exists";
    default:
      return "<invalid code>";
  }
}

const char*
TRITONSERVER_ErrorCodeString(TRITONSERVER_Error* error)
{
  return fc_code_string(error->code);
}

const char*
TRITONSERVER_ErrorMessage(TRITONSERVER_Error* error)
{
  return error->msg;
}

char*
fc_err_as_string(TRITONSERVER_Error* e)
{
  return fc_fmt("%s: %s", fc_code_string(e->code), e->msg);
}
