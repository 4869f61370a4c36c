/* word_echo.c - what the word echo models (models_llm.c, models_embed.c) share: byte strings,
 * splitting a prompt into words, BYTES inputs and outputs, and reading a request's settings the
 * way their model.py files do (Python's json.loads of an input, or request.parameters(), then
 * int() / str checks). (The fake core's own: the models' behaviour is described where they are.) */
#include "fake_core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
fc_texts_push(fc_texts* t, const char* s, size_t len)
{
  if (t->n == t->cap) {
    t->cap = t->cap ? t->cap * 2 : 8;
    t->items = fc_xrealloc(t->items, t->cap * sizeof(char*));
    t->lens = fc_xrealloc(t->lens, t->cap * sizeof(size_t));
  }
  char* copy = fc_xmalloc(len + 1);
  if (len) {
    memcpy(copy, s, len);
  }
  copy[len] = '\0';
  t->items[t->n] = copy;
  t->lens[t->n++] = len;
}

void
fc_texts_free(fc_texts* t)
{
  for (size_t i = 0; i < t->n; ++i) {
    free(t->items[i]);
  }
  free(t->items);
  free(t->lens);
  memset(t, 0, sizeof(*t));
}

bool
fc_texts_has(const fc_texts* t, const char* s, size_t len)
{
  for (size_t i = 0; i < t->n; ++i) {
    if (t->lens[i] == len && (len == 0 || memcmp(t->items[i], s, len) == 0)) {
      return true;
    }
  }
  return false;
}

/* Python's bytes.split() whitespace: space, \t, \n, \v, \f, \r (never a byte >= 0x80). */
static bool
ascii_space(unsigned char c)
{
  return c == ' ' || (c >= '\t' && c <= '\r');
}

void
fc_split_words(const char* s, size_t len, fc_texts* out)
{
  size_t i = 0;
  while (i < len) {
    while (i < len && ascii_space((unsigned char)s[i])) {
      i++;
    }
    size_t start = i;
    while (i < len && !ascii_space((unsigned char)s[i])) {
      i++;
    }
    if (i > start) {
      fc_texts_push(out, s + start, i - start);
    }
  }
}

TRITONSERVER_Error*
fc_input_texts(const fc_input* in, fc_texts* out)
{
  size_t total = fc_input_total_bytes(in);
  char* buf = fc_xmalloc(total + 1);
  TRITONSERVER_Error* err = fc_input_gather(in, buf);
  /* The core checked the layout (validate.c) for host memory; GPU strings reach the model as
   * they are, so each length is still checked against what is left. */
  size_t pos = 0;
  while (err == NULL && pos < total) {
    uint32_t len;
    if (total - pos < sizeof(len)) {
      err = fc_err(TRITONSERVER_ERROR_INVALID_ARG, "malformed BYTES input '%s'", in->name);
      break;
    }
    memcpy(&len, buf + pos, sizeof(len));
    pos += sizeof(len);
    if (total - pos < len) {
      err = fc_err(TRITONSERVER_ERROR_INVALID_ARG, "malformed BYTES input '%s'", in->name);
      break;
    }
    fc_texts_push(out, buf + pos, len);
    pos += len;
  }
  free(buf);
  return err;
}

TRITONSERVER_Error*
fc_output_texts(
    TRITONSERVER_InferenceResponse* resp, const char* name, const int64_t* shape, size_t ndims,
    const fc_texts* t)
{
  size_t bytes = 0;
  for (size_t i = 0; i < t->n; ++i) {
    bytes += sizeof(uint32_t) + t->lens[i];
  }
  void* buf = NULL;
  TRITONSERVER_Error* err =
      fc_response_output(resp, name, TRITONSERVER_TYPE_BYTES, shape, ndims, bytes, &buf);
  if (err != NULL) {
    return err;
  }
  char* p = buf;
  for (size_t i = 0; i < t->n; ++i) {
    uint32_t len = (uint32_t)t->lens[i];
    memcpy(p, &len, sizeof(len));
    p += sizeof(len);
    if (len) {
      memcpy(p, t->items[i], len);
    }
    p += len;
  }
  return NULL;
}

bool
fc_input_first(const fc_input* in, void* dst, size_t elem)
{
  size_t total = fc_input_total_bytes(in);
  if (total < elem) {
    return false;
  }
  char* buf = fc_xmalloc(total);
  TRITONSERVER_Error* err = fc_input_gather(in, buf);
  if (err == NULL) {
    memcpy(dst, buf, elem);
  }
  free(buf);
  fc_err_free(err);
  return err == NULL;
}

/* ================================================================== */
/* settings                                                            */
/* ================================================================== */
/* The JSON number grammar (what json.loads reads as int or float). */
static bool
json_number(const char* s, bool* integral)
{
  const char* p = s;
  *integral = true;
  if (*p == '-') {
    p++;
  }
  if (*p == '0') {
    p++;
  } else if (*p >= '1' && *p <= '9') {
    while (*p >= '0' && *p <= '9') {
      p++;
    }
  } else {
    return false;
  }
  if (*p == '.') {
    *integral = false;
    p++;
    if (*p < '0' || *p > '9') {
      return false;
    }
    while (*p >= '0' && *p <= '9') {
      p++;
    }
  }
  if (*p == 'e' || *p == 'E') {
    *integral = false;
    p++;
    if (*p == '+' || *p == '-') {
      p++;
    }
    if (*p < '0' || *p > '9') {
      return false;
    }
    while (*p >= '0' && *p <= '9') {
      p++;
    }
  }
  return *p == '\0';
}

/* An unquoted scalar json.loads accepts: a number, true, false, or Python's NaN and Infinity. */
static bool
json_literal(const char* s)
{
  bool integral;
  return json_number(s, &integral) || !strcmp(s, "true") || !strcmp(s, "false") ||
         !strcmp(s, "NaN") || !strcmp(s, "Infinity") || !strcmp(s, "-Infinity");
}

static bool
literals_valid(const fc_node* n)
{
  for (; n != NULL; n = n->next) {
    if (n->kind == FC_NODE_SCALAR && !n->quoted && !json_literal(n->text)) {
      return false;
    }
    if (n->kind == FC_NODE_MESSAGE && !literals_valid(n->child)) {
      return false;
    }
  }
  return true;
}

bool
fc_settings_from_json(fc_settings* s, const char* text, size_t len)
{
  memset(s, 0, sizeof(*s));
  char* err = NULL;
  fc_node* root = fc_json_parse(text, len, &err);
  free(err);
  if (root == NULL) {
    return false;
  }
  if (!literals_valid(root->child)) {
    fc_node_free(root);
    return false;
  }
  s->json = root;
  return true;
}

void
fc_settings_from_params(fc_settings* s, const fc_params* p)
{
  memset(s, 0, sizeof(*s));
  s->params = p;
}

void
fc_settings_free(fc_settings* s)
{
  fc_node_free(s->json);
  memset(s, 0, sizeof(*s));
}

/* One setting: absent, a request parameter, or the JSON nodes of its key. */
typedef struct {
  const TRITONSERVER_Parameter* param;
  const fc_node* first;
  size_t count; /* JSON nodes with the key: more than one is a list */
} setting;

static setting
find_setting(const fc_settings* s, const char* key)
{
  setting v = {NULL, NULL, 0};
  if (s->json != NULL) {
    for (const fc_node* n = s->json->child; n != NULL; n = n->next) {
      if (strcmp(n->key, key) == 0 && v.count++ == 0) {
        v.first = n;
      }
    }
  } else if (s->params != NULL) {
    for (size_t i = 0; i < s->params->n; ++i) {
      if (strcmp(s->params->items[i].name, key) == 0) {
        v.param = &s->params->items[i]; /* the last one, as a JSON object keeps it */
      }
    }
  }
  return v;
}

/* Python's int(x) of a float known to be integral, clamped to int64. */
static int64_t
clamp_double(double d)
{
  if (d >= 9223372036854775807.0) {
    return INT64_MAX;
  }
  if (d <= -9223372036854775808.0) {
    return INT64_MIN;
  }
  return (int64_t)d;
}

/* A string of ASCII digits with an optional '-', as int(); clamped to int64. */
static bool
digits(const char* p, int64_t* out)
{
  const char* q = *p == '-' ? p + 1 : p;
  if (*q == '\0') {
    return false;
  }
  for (const char* c = q; *c; ++c) {
    if (*c < '0' || *c > '9') {
      return false;
    }
  }
  long long v = strtoll(p, NULL, 10); /* ERANGE gives LLONG_MIN / LLONG_MAX: the clamp */
  *out = (int64_t)v;
  return true;
}

/* Whether d is a finite integral number (Python's float.is_integer()), and then int(d). Every
 * double at or beyond 2^63 in size is integral. */
static bool
integral_double(double d, int64_t* out)
{
  if (!isfinite(d)) {
    return false;
  }
  if (d < 9223372036854775807.0 && d > -9223372036854775808.0 && (double)(int64_t)d != d) {
    return false;
  }
  *out = clamp_double(d);
  return true;
}

static bool
setting_int(const setting* v, int64_t* out)
{
  if (v->param != NULL) {
    switch (v->param->type) {
      case TRITONSERVER_PARAMETER_INT:
        *out = v->param->i64;
        return true;
      case TRITONSERVER_PARAMETER_DOUBLE:
        return integral_double(v->param->d, out);
      case TRITONSERVER_PARAMETER_STRING:
        return digits(v->param->str, out);
      default:
        return false;
    }
  }
  const fc_node* n = v->first;
  if (v->count != 1 || n->kind != FC_NODE_SCALAR) {
    return false;
  }
  if (n->quoted) {
    return digits(n->text, out);
  }
  bool integral;
  if (!json_number(n->text, &integral)) {
    return false; /* true, false, NaN, Infinity */
  }
  return integral ? digits(n->text, out) : integral_double(strtod(n->text, NULL), out);
}

TRITONSERVER_Error*
fc_settings_int(
    const fc_settings* s, const char* model, const char* key, int64_t def, int64_t least,
    int64_t* out)
{
  setting v = find_setting(s, key);
  if (v.param == NULL && v.count == 0) {
    *out = def;
    return NULL;
  }
  if (!setting_int(&v, out)) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "%s: %s must be an integer", model, key);
  }
  if (*out < least) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG, "%s: %s must be at least %lld", model, key,
        (long long)least);
  }
  return NULL;
}

TRITONSERVER_Error*
fc_settings_strings(
    const fc_settings* s, const char* model, const char* key, bool allow_list, fc_texts* out)
{
  setting v = find_setting(s, key);
  bool ok = true;
  if (v.param != NULL) {
    ok = v.param->type == TRITONSERVER_PARAMETER_STRING;
    if (ok) {
      fc_texts_push(out, v.param->str, strlen(v.param->str));
    }
  } else if (v.count > 0) {
    ok = allow_list || v.count == 1;
    for (const fc_node* n = v.first; ok && n != NULL; n = n->next) {
      if (strcmp(n->key, key) != 0) {
        continue;
      }
      ok = n->kind == FC_NODE_SCALAR && n->quoted;
      if (ok) {
        fc_texts_push(out, n->text, strlen(n->text));
      }
    }
  }
  if (!ok) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG, "%s: %s must be a string%s", model, key,
        allow_list ? " or a list of strings" : "");
  }
  return NULL;
}
