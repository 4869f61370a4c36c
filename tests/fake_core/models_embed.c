/* models_embed.c - tiny_embed, the python backend's embedding model of the OpenAI front end's
 * tests, imitated by name: for each string of TEXT (BYTES [N]) with bytes b_0 .. b_{k-1},
 * h = (sum of b_i * (i + 1)) mod 1000003 and component j (0 .. 7) of its EMBEDDING (FP32 [N, 8])
 * is (float)((h * (j + 1)) mod 2001 - 1000) / 1000.0f; NUM_TOKENS (INT32 [N]) is its word count.
 * It imitates tests/models/tiny_embed/1/model.py run by the real python backend (numpy's float32
 * division gives the same numbers); only requested outputs are returned. */
#include "fake_core.h"

#include <stdlib.h>
#include <string.h>

#define EMBED_MODULUS 1000003u
#define EMBED_DIMS 8

static TRITONSERVER_Error*
tiny_embed_validate(const fc_config* c)
{
  const fc_io* text = fc_config_input(c, "TEXT");
  const fc_io* embedding = fc_config_output(c, "EMBEDDING");
  const fc_io* tokens = fc_config_output(c, "NUM_TOKENS");
  if (text == NULL || embedding == NULL || tokens == NULL ||
      text->dtype != TRITONSERVER_TYPE_BYTES || embedding->dtype != TRITONSERVER_TYPE_FP32 ||
      tokens->dtype != TRITONSERVER_TYPE_INT32) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG,
        "tiny_embed expects BYTES input TEXT, FP32 output EMBEDDING and INT32 output NUM_TOKENS");
  }
  return NULL;
}

static void
embed(const char* s, size_t len, float* out)
{
  uint64_t h = 0;
  for (size_t i = 0; i < len; ++i) {
    h = (h + (uint64_t)(unsigned char)s[i] * ((i + 1) % EMBED_MODULUS)) % EMBED_MODULUS;
  }
  for (uint64_t j = 0; j < EMBED_DIMS; ++j) {
    int64_t numerator = (int64_t)((h * (j + 1)) % 2001) - 1000;
    out[j] = (float)numerator / 1000.0f;
  }
}

static void
tiny_embed_execute(fc_model* m, TRITONSERVER_InferenceRequest* req)
{
  FC_UNUSED(m);
  TRITONSERVER_InferenceResponse* resp = fc_response_new(req->factory);
  fc_texts texts = {0};
  TRITONSERVER_Error* err = fc_input_texts(fc_request_find_input(req, "TEXT"), &texts);
  const int64_t shape[2] = {(int64_t)texts.n, EMBED_DIMS};
  if (err == NULL && fc_strset_has(&req->exec_outputs, "EMBEDDING")) {
    void* buf = NULL;
    size_t bytes = texts.n * EMBED_DIMS * sizeof(float);
    err = fc_response_output(resp, "EMBEDDING", TRITONSERVER_TYPE_FP32, shape, 2, bytes, &buf);
    for (size_t n = 0; err == NULL && n < texts.n; ++n) {
      embed(texts.items[n], texts.lens[n], (float*)buf + n * EMBED_DIMS);
    }
  }
  if (err == NULL && fc_strset_has(&req->exec_outputs, "NUM_TOKENS")) {
    void* buf = NULL;
    err = fc_response_output(
        resp, "NUM_TOKENS", TRITONSERVER_TYPE_INT32, shape, 1, texts.n * sizeof(int32_t), &buf);
    for (size_t n = 0; err == NULL && n < texts.n; ++n) {
      fc_texts words = {0};
      fc_split_words(texts.items[n], texts.lens[n], &words);
      int32_t count = (int32_t)words.n;
      memcpy((char*)buf + n * sizeof(int32_t), &count, sizeof(count));
      fc_texts_free(&words);
    }
  }
  fc_texts_free(&texts);
  bool ok = (err == NULL);
  fc_response_send(resp, TRITONSERVER_RESPONSE_COMPLETE_FINAL, err);
  fc_request_release(req, ok);
}

static const fc_executor k_tiny_embed = {
    "python:tiny_embed", tiny_embed_validate, tiny_embed_execute};

const fc_executor*
fc_embed_executor(const char* model_name)
{
  return strcmp(model_name, "tiny_embed") == 0 ? &k_tiny_embed : NULL;
}
