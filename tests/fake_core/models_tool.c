/* models_tool.c - tool_llm, the python backend's model that writes tool calls for the OpenAI front
 * end's tests, imitated by name. It says the last message of a conversation again: of PROMPT
 * (BYTES [1]) it generates the text between the last "<|end|>" and the last "|>" before it (from
 * the start where there is none; the whole prompt where there is no "<|end|>"), which its chat
 * template (tests/models/tool_llm/tokenizer_config.json) makes the last message's content. The
 * text goes out in pieces of TOOL_PIECE bytes (a UTF-8 character may be split between two), one
 * TEXT (BYTES [1]) per response, then the FINAL flag alone; a cancelled request ends with a
 * CANCELLED error before its next piece. It imitates tests/models/tool_llm/1/model.py run by the
 * real python backend; the request is released once its input was read (async execute). */
#include "fake_core.h"

#include <stdlib.h>
#include <string.h>

#define TOOL_PIECE 4

typedef struct {
  fc_model* model;
  fc_factory* factory;
  char* text;
  size_t len;
  bool want_text;
} tool_job;

static TRITONSERVER_Error*
tool_llm_validate(const fc_config* c)
{
  const fc_io* prompt = fc_config_input(c, "PROMPT");
  const fc_io* text = fc_config_output(c, "TEXT");
  if (prompt == NULL || text == NULL || prompt->dtype != TRITONSERVER_TYPE_BYTES ||
      text->dtype != TRITONSERVER_TYPE_BYTES) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG, "tool_llm expects BYTES input PROMPT and output TEXT");
  }
  return NULL;
}

/* The last occurrence of needle in s[0, len), or NULL. */
static const char*
last_of(const char* s, size_t len, const char* needle)
{
  size_t n = strlen(needle);
  for (size_t i = len >= n ? len - n + 1 : 0; i-- > 0;) {
    if (memcmp(s + i, needle, n) == 0) {
      return s + i;
    }
  }
  return NULL;
}

static void
tool_llm_main(void* p)
{
  tool_job* job = p;
  fc_factory* f = job->factory;
  bool ended = false;
  for (size_t at = 0; at < job->len && !ended; at += TOOL_PIECE) {
    if (fc_sched_stream_stop(job->model, f)) {
      fc_respond_error(f, fc_err(TRITONSERVER_ERROR_CANCELLED, "request cancelled"));
      ended = true;
      break;
    }
    size_t n = job->len - at < TOOL_PIECE ? job->len - at : TOOL_PIECE;
    TRITONSERVER_InferenceResponse* resp = fc_response_new(f);
    TRITONSERVER_Error* err = NULL;
    if (job->want_text) {
      const int64_t one = 1;
      fc_texts t = {0};
      fc_texts_push(&t, job->text + at, n);
      err = fc_output_texts(resp, "TEXT", &one, 1, &t);
      fc_texts_free(&t);
    }
    if (err != NULL) {
      fc_response_destroy(resp);
      fc_respond_error(f, err);
      ended = true;
    } else {
      fc_response_send(resp, 0, NULL);
    }
  }
  if (!ended) {
    fc_factory_send_flags(f, TRITONSERVER_RESPONSE_COMPLETE_FINAL);
  }
  fc_factory_unref(f);
  free(job->text);
  free(job);
}

static void
tool_llm_execute(fc_model* m, TRITONSERVER_InferenceRequest* req)
{
  const fc_input* in = fc_request_find_input(req, "PROMPT");
  if (in == NULL) {
    fc_respond_error(
        req->factory, fc_err(TRITONSERVER_ERROR_INVALID_ARG, "tool_llm: missing input 'PROMPT'"));
    fc_request_release(req, true);
    return;
  }
  fc_texts prompt = {0};
  TRITONSERVER_Error* err = fc_input_texts(in, &prompt);
  if (err != NULL) {
    fc_texts_free(&prompt);
    fc_respond_error(req->factory, err);
    fc_request_release(req, true);
    return;
  }
  const char* s = prompt.n ? prompt.items[0] : "";
  size_t len = prompt.n ? prompt.lens[0] : 0;
  const char* begin = s;
  const char* end = last_of(s, len, "<|end|>");
  if (end == NULL) {
    end = s + len;
  } else {
    const char* open = last_of(s, (size_t)(end - s), "|>");
    if (open != NULL) {
      begin = open + 2;
    }
  }
  tool_job* job = fc_xcalloc(1, sizeof(*job));
  job->len = (size_t)(end - begin);
  job->text = fc_xmalloc(job->len + 1);
  memcpy(job->text, begin, job->len);
  fc_texts_free(&prompt);
  job->model = m;
  job->factory = fc_factory_ref(req->factory);
  job->want_text = fc_strset_has(&req->exec_outputs, "TEXT");
  fc_sched_spawn_stream(m, tool_llm_main, job);
  fc_request_release(req, true);
}

static const fc_executor k_tool_llm = {"python:tool_llm", tool_llm_validate, tool_llm_execute};

const fc_executor*
fc_tool_executor(const char* model_name)
{
  return strcmp(model_name, "tool_llm") == 0 ? &k_tool_llm : NULL;
}
