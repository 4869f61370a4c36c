/* models_llm.c - the decoupled word echo models of the python backend, imitated by model name:
 *   tiny_llm     vLLM's convention: text_input, stream, sampling_parameters (JSON) or request
 *                parameters, exclude_input_in_output, return_* flags -> text_output,
 *                finish_reason, num_input_tokens, num_output_tokens; the FINAL flag rides on the
 *                last response, as vLLM's backend sends it
 *   tiny_trtllm  TensorRT-LLM's convention (batch dimension, one prompt): text_input, max_tokens,
 *                stop_words, stream, exclude_input_in_output -> text_output [1, 1]; the FINAL
 *                flag alone at the end and errors as a response then FINAL, as tensorrt_llm_bls
 *   word_stream  custom: PROMPT -> one WORD per response, request parameters max_words, delay_ms,
 *                response_format; then the FINAL flag alone
 * Each imitates the model.py of the same name in tests/models run by the real python backend (its
 * outputs, errors, wording and decoupled responses; see the docstrings there). The words of a
 * prompt are generated back as " " + word; each model sleeps delay_ms before each word (a sleep a
 * cancellation does not cut short, as asyncio.sleep), then checks for cancellation and ends the
 * stream with a CANCELLED error. As with the python backend, only requested outputs are returned,
 * and the request is released once its inputs were read (async execute), so requests run
 * concurrently. */
#include "fake_core.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A sleep longer than this is as good as forever for a test (and keeps the ns count in range). */
#define MAX_DELAY_MS 86400000

typedef struct {
  const char* name;
  TRITONSERVER_DataType dtype;
  bool input;
  bool required;
} io_rule;

/* The tensors a model reads or writes: each present with its datatype, or optional. */
static TRITONSERVER_Error*
check_rules(const fc_config* c, const io_rule* rules, size_t n)
{
  for (size_t i = 0; i < n; ++i) {
    const io_rule* r = &rules[i];
    const fc_io* io = r->input ? fc_config_input(c, r->name) : fc_config_output(c, r->name);
    if ((io == NULL && r->required) || (io != NULL && io->dtype != r->dtype)) {
      return fc_err(
          TRITONSERVER_ERROR_INVALID_ARG, "%s expects %s '%s' of type %s", c->name,
          r->input ? "input" : "output", r->name, fc_config_dtype_name(r->dtype));
    }
  }
  return NULL;
}

/* What one request generates, read from its inputs before it is released. */
typedef struct {
  fc_model* model;
  fc_factory* factory;
  fc_texts prompt;      /* its one element */
  fc_texts texts;       /* the text of each word response, in order */
  const char* finish;   /* "stop" or "length" */
  size_t input_words;
  uint64_t delay_ms;
  bool stream;
  bool prepend;         /* the whole text starts with the prompt */
  bool want_text, want_finish, want_input_count, want_output_count;
} gen_job;

static void
job_free(gen_job* job)
{
  fc_texts_free(&job->prompt);
  fc_texts_free(&job->texts);
  free(job);
}

static bool
flag(const TRITONSERVER_InferenceRequest* req, const char* name, bool def)
{
  const fc_input* in = fc_request_find_input(req, name);
  unsigned char b = 0;
  return in != NULL && fc_input_first(in, &b, 1) ? b != 0 : def;
}

/* The core lets a request without a required input through when optional ones make up the
 * count (validate.c); the models name it, as their model.py does. */
static TRITONSERVER_Error*
missing(const TRITONSERVER_InferenceRequest* req, const char* name)
{
  if (fc_request_find_input(req, name) != NULL) {
    return NULL;
  }
  return fc_err(
      TRITONSERVER_ERROR_INVALID_ARG, "%s: missing input '%s'", req->model->cfg->name, name);
}

/* The first element of a BYTES input (an empty string when it has none). */
static TRITONSERVER_Error*
read_text(const TRITONSERVER_InferenceRequest* req, const char* name, fc_texts* out)
{
  TRITONSERVER_Error* err = missing(req, name);
  if (err != NULL) {
    return err;
  }
  fc_texts all = {0};
  err = fc_input_texts(fc_request_find_input(req, name), &all);
  if (err == NULL) {
    fc_texts_push(out, all.n ? all.items[0] : "", all.n ? all.lens[0] : 0);
  }
  fc_texts_free(&all);
  return err;
}

/* Sleeps the job's delay, then reports whether the request is to end (cancelled, or teardown). */
static bool
stopped_after_sleep(gen_job* job)
{
  fc_sched_sleep(job->model, NULL, job->delay_ms);
  return fc_sched_stream_stop(job->model, job->factory);
}

static TRITONSERVER_Error*
cancelled_error(void)
{
  return fc_err(TRITONSERVER_ERROR_CANCELLED, "request cancelled");
}

static TRITONSERVER_Error*
add_text(
    TRITONSERVER_InferenceResponse* resp, const char* name, const int64_t* shape, size_t ndims,
    const char* text, size_t len)
{
  fc_texts t = {0};
  fc_texts_push(&t, text, len);
  TRITONSERVER_Error* err = fc_output_texts(resp, name, shape, ndims, &t);
  fc_texts_free(&t);
  return err;
}

/* A UINT32 output of shape [1], or of shape [] with scalar. */
static TRITONSERVER_Error*
add_u32(TRITONSERVER_InferenceResponse* resp, const char* name, uint32_t value, bool scalar)
{
  const int64_t one = 1;
  void* buf = NULL;
  TRITONSERVER_Error* err = fc_response_output(
      resp, name, TRITONSERVER_TYPE_UINT32, &one, scalar ? 0 : 1, sizeof(value), &buf);
  if (err == NULL) {
    memcpy(buf, &value, sizeof(value));
  }
  return err;
}

/* The prompt and every generated text, joined (the prompt only when the job prepends it). */
static void
whole_text(const gen_job* job, fc_sb* sb)
{
  fc_sb_init(sb);
  if (job->prepend) {
    fc_sb_putn(sb, job->prompt.items[0], job->prompt.lens[0]);
  }
  for (size_t i = 0; i < job->texts.n; ++i) {
    fc_sb_putn(sb, job->texts.items[i], job->texts.lens[i]);
  }
}

/* Appends " " + word for each word of the prompt, at most max of them, stopping before a word
 * that is one of stops; returns the finish reason. */
static const char*
plan(const gen_job* job, int64_t max, const fc_texts* stops, fc_texts* out)
{
  fc_texts words = {0};
  fc_split_words(job->prompt.items[0], job->prompt.lens[0], &words);
  const char* finish = "stop";
  for (size_t i = 0; i < words.n; ++i) {
    if ((int64_t)out->n == max) {
      finish = "length";
      break;
    }
    if (fc_texts_has(stops, words.items[i], words.lens[i])) {
      break;
    }
    char* text = fc_xmalloc(words.lens[i] + 1);
    text[0] = ' ';
    memcpy(text + 1, words.items[i], words.lens[i]);
    fc_texts_push(out, text, words.lens[i] + 1);
    free(text);
  }
  fc_texts_free(&words);
  return finish;
}

static uint64_t
delay_of(int64_t ms)
{
  return ms > MAX_DELAY_MS ? MAX_DELAY_MS : (uint64_t)ms;
}

/* ================================================================== */
/* tiny_llm: vLLM's convention                                          */
/* ================================================================== */
static const io_rule k_tiny_llm_io[] = {
    {"text_input", TRITONSERVER_TYPE_BYTES, true, true},
    {"stream", TRITONSERVER_TYPE_BOOL, true, false},
    {"sampling_parameters", TRITONSERVER_TYPE_BYTES, true, false},
    {"exclude_input_in_output", TRITONSERVER_TYPE_BOOL, true, false},
    {"return_finish_reason", TRITONSERVER_TYPE_BOOL, true, false},
    {"return_num_input_tokens", TRITONSERVER_TYPE_BOOL, true, false},
    {"return_num_output_tokens", TRITONSERVER_TYPE_BOOL, true, false},
    {"text_output", TRITONSERVER_TYPE_BYTES, false, true},
    {"finish_reason", TRITONSERVER_TYPE_BYTES, false, false},
    {"num_input_tokens", TRITONSERVER_TYPE_UINT32, false, false},
    {"num_output_tokens", TRITONSERVER_TYPE_UINT32, false, false},
};

static TRITONSERVER_Error*
tiny_llm_validate(const fc_config* c)
{
  return check_rules(c, k_tiny_llm_io, sizeof k_tiny_llm_io / sizeof k_tiny_llm_io[0]);
}

/* The sampling parameters: the sampling_parameters input (JSON) or the request parameters. */
static TRITONSERVER_Error*
tiny_llm_settings(const TRITONSERVER_InferenceRequest* req, fc_settings* s)
{
  if (fc_request_find_input(req, "sampling_parameters") == NULL) {
    fc_settings_from_params(s, &req->params);
    return NULL;
  }
  fc_texts json = {0};
  TRITONSERVER_Error* err = read_text(req, "sampling_parameters", &json);
  if (err == NULL && !fc_settings_from_json(s, json.items[0], json.lens[0])) {
    err = fc_err(
        TRITONSERVER_ERROR_INVALID_ARG, "tiny_llm: sampling_parameters must be a JSON object");
  }
  fc_texts_free(&json);
  return err;
}

/* Reads the request in the order model.py does (its first error wins). */
static TRITONSERVER_Error*
tiny_llm_read(const TRITONSERVER_InferenceRequest* req, gen_job* job)
{
  TRITONSERVER_Error* err = read_text(req, "text_input", &job->prompt);
  if (err != NULL) {
    return err;
  }
  job->stream = flag(req, "stream", false);
  job->prepend = !flag(req, "exclude_input_in_output", job->stream);
  if (job->prepend && job->stream) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG,
        "tiny_llm: exclude_input_in_output false is not allowed when streaming");
  }
  const fc_strset* outs = &req->exec_outputs;
  job->want_text = fc_strset_has(outs, "text_output");
  job->want_finish =
      flag(req, "return_finish_reason", false) && fc_strset_has(outs, "finish_reason");
  job->want_input_count =
      flag(req, "return_num_input_tokens", false) && fc_strset_has(outs, "num_input_tokens");
  job->want_output_count =
      flag(req, "return_num_output_tokens", false) && fc_strset_has(outs, "num_output_tokens");
  fc_settings s;
  err = tiny_llm_settings(req, &s);
  if (err != NULL) {
    return err;
  }
  int64_t max_tokens = 0, delay_ms = 0;
  fc_texts stops = {0};
  err = fc_settings_int(&s, "tiny_llm", "max_tokens", 16, 1, &max_tokens);
  if (err == NULL) {
    err = fc_settings_int(&s, "tiny_llm", "delay_ms", 0, 0, &delay_ms);
  }
  if (err == NULL) {
    err = fc_settings_strings(&s, "tiny_llm", "stop", true, &stops);
  }
  if (err == NULL) {
    fc_texts words = {0};
    fc_split_words(job->prompt.items[0], job->prompt.lens[0], &words);
    job->input_words = words.n;
    fc_texts_free(&words);
    job->delay_ms = delay_of(delay_ms);
    job->finish = plan(job, max_tokens, &stops, &job->texts);
  }
  fc_texts_free(&stops);
  fc_settings_free(&s);
  return err;
}

/* Sends one response; true when the stream ended (FINAL sent, or an output failed). */
static bool
tiny_llm_send(gen_job* job, const char* text, size_t len, uint32_t count, const char* finish,
              bool final)
{
  TRITONSERVER_InferenceResponse* resp = fc_response_new(job->factory);
  const int64_t one = 1;
  TRITONSERVER_Error* err = NULL;
  if (job->want_text) {
    err = add_text(resp, "text_output", &one, 1, text, len);
  }
  if (err == NULL && job->want_finish) {
    err = add_text(resp, "finish_reason", &one, 1, finish, strlen(finish));
  }
  if (err == NULL && job->want_input_count) {
    /* a 0-d array, as vLLM's backend sends it (np.asarray(count)) */
    err = add_u32(resp, "num_input_tokens", (uint32_t)job->input_words, true);
  }
  if (err == NULL && job->want_output_count) {
    err = add_u32(resp, "num_output_tokens", count, false);
  }
  if (err != NULL) {
    fc_response_destroy(resp); /* end the stream with the error */
    fc_respond_error(job->factory, err);
    return true;
  }
  fc_response_send(resp, final ? TRITONSERVER_RESPONSE_COMPLETE_FINAL : 0, NULL);
  return final;
}

static void
tiny_llm_main(void* p)
{
  gen_job* job = p;
  bool ended = false;
  for (size_t i = 0; i < job->texts.n && !ended; ++i) {
    if (stopped_after_sleep(job)) {
      fc_respond_error(job->factory, cancelled_error());
      ended = true;
    } else if (job->stream) {
      bool last = i + 1 == job->texts.n;
      /* str(None): vLLM's backend names no reason before the last response */
      ended = tiny_llm_send(
          job, job->texts.items[i], job->texts.lens[i], 1, last ? job->finish : "None", last);
    }
  }
  if (!ended && !job->stream) {
    fc_sb sb;
    whole_text(job, &sb);
    tiny_llm_send(job, sb.data ? sb.data : "", sb.len, (uint32_t)job->texts.n, job->finish, true);
    fc_sb_free(&sb);
  } else if (!ended) { /* streaming, nothing generated */
    tiny_llm_send(job, "", 0, 0, job->finish, true);
  }
  fc_factory_unref(job->factory);
  job_free(job);
}

static void
tiny_llm_execute(fc_model* m, TRITONSERVER_InferenceRequest* req)
{
  gen_job* job = fc_xcalloc(1, sizeof(*job));
  TRITONSERVER_Error* err = tiny_llm_read(req, job);
  if (err != NULL) {
    job_free(job);
    fc_respond_error(req->factory, err);
  } else {
    job->model = m;
    job->factory = fc_factory_ref(req->factory);
    fc_sched_spawn_stream(m, tiny_llm_main, job);
  }
  fc_request_release(req, true);
}

/* ================================================================== */
/* tiny_trtllm: TensorRT-LLM's convention                               */
/* ================================================================== */
static const io_rule k_tiny_trtllm_io[] = {
    {"text_input", TRITONSERVER_TYPE_BYTES, true, true},
    {"max_tokens", TRITONSERVER_TYPE_INT32, true, true},
    {"stop_words", TRITONSERVER_TYPE_BYTES, true, false},
    {"exclude_input_in_output", TRITONSERVER_TYPE_BOOL, true, false},
    {"top_p", TRITONSERVER_TYPE_FP32, true, false},
    {"temperature", TRITONSERVER_TYPE_FP32, true, false},
    {"seed", TRITONSERVER_TYPE_UINT64, true, false},
    {"stream", TRITONSERVER_TYPE_BOOL, true, false},
    {"text_output", TRITONSERVER_TYPE_BYTES, false, true},
};

static TRITONSERVER_Error*
tiny_trtllm_validate(const fc_config* c)
{
  if (c->max_batch_size < 1) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG, "tiny_trtllm expects a batch dimension (max_batch_size)");
  }
  return check_rules(c, k_tiny_trtllm_io, sizeof k_tiny_trtllm_io / sizeof k_tiny_trtllm_io[0]);
}

/* Reads the request in the order model.py does (its first error wins). */
static TRITONSERVER_Error*
tiny_trtllm_read(const fc_model* m, const TRITONSERVER_InferenceRequest* req, gen_job* job)
{
  TRITONSERVER_Error* err = missing(req, "text_input");
  if (err != NULL) {
    return err;
  }
  const fc_input* text = fc_request_find_input(req, "text_input");
  if (text->nexec < 1 || text->exec_shape[0] != 1) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG, "tiny_trtllm: one prompt per request (batch size 1)");
  }
  err = read_text(req, "text_input", &job->prompt);
  if (err != NULL) {
    return err;
  }
  const char* exclude = fc_config_param(m->cfg, "exclude_input_in_output");
  job->stream = flag(req, "stream", false);
  job->prepend =
      !flag(req, "exclude_input_in_output", exclude != NULL && !strcasecmp(exclude, "true"));
  job->want_text = fc_strset_has(&req->exec_outputs, "text_output");
  err = missing(req, "max_tokens");
  if (err != NULL) {
    return err;
  }
  int32_t max_tokens = 0;
  fc_input_first(fc_request_find_input(req, "max_tokens"), &max_tokens, sizeof(max_tokens));
  if (max_tokens < 1) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "tiny_trtllm: max_tokens must be at least 1");
  }
  fc_texts stops = {0};
  const fc_input* stop_words = fc_request_find_input(req, "stop_words");
  if (stop_words != NULL) {
    err = fc_input_texts(stop_words, &stops);
  }
  fc_settings s;
  fc_settings_from_params(&s, &req->params);
  int64_t delay_ms = 0;
  if (err == NULL) {
    err = fc_settings_int(&s, "tiny_trtllm", "delay_ms", 0, 0, &delay_ms);
  }
  if (err == NULL) {
    job->delay_ms = delay_of(delay_ms);
    plan(job, max_tokens, &stops, &job->texts);
  }
  fc_texts_free(&stops);
  fc_settings_free(&s);
  return err;
}

/* As tensorrt_llm_bls: a response with the error, then the FINAL flag alone. */
static void
tiny_trtllm_fail(fc_factory* f, TRITONSERVER_Error* err)
{
  fc_response_send(fc_response_new(f), 0, err);
  fc_factory_send_flags(f, TRITONSERVER_RESPONSE_COMPLETE_FINAL);
}

/* Sends text_output [1, 1]; false when its output failed (the stream ended with the error). */
static bool
tiny_trtllm_send(gen_job* job, const char* text, size_t len)
{
  TRITONSERVER_InferenceResponse* resp = fc_response_new(job->factory);
  const int64_t shape[2] = {1, 1};
  TRITONSERVER_Error* err = NULL;
  if (job->want_text) {
    err = add_text(resp, "text_output", shape, 2, text, len);
  }
  if (err != NULL) {
    fc_response_destroy(resp);
    tiny_trtllm_fail(job->factory, err);
    return false;
  }
  fc_response_send(resp, 0, NULL);
  return true;
}

static void
tiny_trtllm_main(void* p)
{
  gen_job* job = p;
  bool ok = true;
  for (size_t i = 0; i < job->texts.n && ok; ++i) {
    if (stopped_after_sleep(job)) {
      tiny_trtllm_fail(job->factory, cancelled_error());
      ok = false;
    } else if (job->stream) {
      ok = tiny_trtllm_send(job, job->texts.items[i], job->texts.lens[i]);
    }
  }
  if (ok && !job->stream) {
    fc_sb sb;
    whole_text(job, &sb);
    ok = tiny_trtllm_send(job, sb.data ? sb.data : "", sb.len);
    fc_sb_free(&sb);
  }
  if (ok) {
    fc_factory_send_flags(job->factory, TRITONSERVER_RESPONSE_COMPLETE_FINAL);
  }
  fc_factory_unref(job->factory);
  job_free(job);
}

static void
tiny_trtllm_execute(fc_model* m, TRITONSERVER_InferenceRequest* req)
{
  gen_job* job = fc_xcalloc(1, sizeof(*job));
  TRITONSERVER_Error* err = tiny_trtllm_read(m, req, job);
  if (err != NULL) {
    job_free(job);
    tiny_trtllm_fail(req->factory, err);
  } else {
    job->model = m;
    job->factory = fc_factory_ref(req->factory);
    fc_sched_spawn_stream(m, tiny_trtllm_main, job);
  }
  fc_request_release(req, true);
}

/* ================================================================== */
/* word_stream: custom, request parameters                              */
/* ================================================================== */
static const io_rule k_word_stream_io[] = {
    {"PROMPT", TRITONSERVER_TYPE_BYTES, true, true},
    {"WORD", TRITONSERVER_TYPE_BYTES, false, true},
};

static TRITONSERVER_Error*
word_stream_validate(const fc_config* c)
{
  return check_rules(c, k_word_stream_io, sizeof k_word_stream_io / sizeof k_word_stream_io[0]);
}

/* Reads the request in the order model.py does (its first error wins). */
static TRITONSERVER_Error*
word_stream_read(const TRITONSERVER_InferenceRequest* req, gen_job* job)
{
  fc_settings s;
  fc_settings_from_params(&s, &req->params);
  int64_t max_words = 0, delay_ms = 0;
  TRITONSERVER_Error* err = fc_settings_int(&s, "word_stream", "max_words", 16, 0, &max_words);
  if (err == NULL) {
    err = fc_settings_int(&s, "word_stream", "delay_ms", 0, 0, &delay_ms);
  }
  if (err == NULL) {
    err = fc_settings_strings(&s, "word_stream", "response_format", false, &job->texts);
  }
  if (err == NULL && job->texts.n == 0) { /* no response_format: echo the prompt */
    err = read_text(req, "PROMPT", &job->prompt);
    if (err == NULL) {
      fc_texts none = {0};
      plan(job, max_words, &none, &job->texts);
    }
  }
  job->delay_ms = delay_of(delay_ms);
  job->want_text = fc_strset_has(&req->exec_outputs, "WORD");
  fc_settings_free(&s);
  return err;
}

static void
word_stream_main(void* p)
{
  gen_job* job = p;
  fc_factory* f = job->factory;
  bool ended = false;
  for (size_t i = 0; i < job->texts.n && !ended; ++i) {
    if (stopped_after_sleep(job)) {
      fc_respond_error(f, cancelled_error());
      ended = true;
      break;
    }
    TRITONSERVER_InferenceResponse* resp = fc_response_new(f);
    const int64_t one = 1;
    TRITONSERVER_Error* err = NULL;
    if (job->want_text) {
      err = add_text(resp, "WORD", &one, 1, job->texts.items[i], job->texts.lens[i]);
    }
    if (err != NULL) {
      fc_response_destroy(resp); /* end the stream with the error */
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
  job_free(job);
}

static void
word_stream_execute(fc_model* m, TRITONSERVER_InferenceRequest* req)
{
  gen_job* job = fc_xcalloc(1, sizeof(*job));
  TRITONSERVER_Error* err = word_stream_read(req, job);
  if (err != NULL) {
    job_free(job);
    fc_respond_error(req->factory, err);
  } else {
    job->model = m;
    job->factory = fc_factory_ref(req->factory);
    fc_sched_spawn_stream(m, word_stream_main, job);
  }
  fc_request_release(req, true);
}

/* ================================================================== */
static const fc_executor k_tiny_llm = {"python:tiny_llm", tiny_llm_validate, tiny_llm_execute};
static const fc_executor k_tiny_trtllm = {
    "python:tiny_trtllm", tiny_trtllm_validate, tiny_trtllm_execute};
static const fc_executor k_word_stream = {
    "python:word_stream", word_stream_validate, word_stream_execute};

const fc_executor*
fc_llm_executor(const char* model_name)
{
  if (strcmp(model_name, "tiny_llm") == 0) {
    return &k_tiny_llm;
  }
  if (strcmp(model_name, "tiny_trtllm") == 0) {
    return &k_tiny_trtllm;
  }
  if (strcmp(model_name, "word_stream") == 0) {
    return &k_word_stream;
  }
  return NULL;
}
