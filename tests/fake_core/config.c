/* config.c - model configuration: tree -> struct, defaults, JSON output.
 * Real core: the defaults are those NormalizeModelConfig (through
 * GetNormalizedModelConfig) fills in, and the JSON is ModelConfigToJson's
 * (config version 1), for the fields the tests' models use. */
#include "fake_core.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- scalar readers (strict like the protobuf text parser) ---- */
static bool
rd_scalar(const fc_node* n, char** err)
{
  if (n->kind != FC_NODE_SCALAR || n->text == NULL) {
    *err = fc_fmt("field '%s' expects a value, got a message", n->key);
    return false;
  }
  return true;
}

static bool
rd_string(const fc_node* n, char** dst, char** err)
{
  if (!rd_scalar(n, err)) {
    return false;
  }
  if (!n->quoted) {
    *err = fc_fmt("field '%s' expects a string, got '%s'", n->key, n->text);
    return false;
  }
  free(*dst);
  *dst = fc_strdup(n->text);
  return true;
}

static bool
rd_int(const fc_node* n, int64_t* dst, char** err)
{
  if (!rd_scalar(n, err)) {
    return false;
  }
  char* end = NULL;
  errno = 0;
  long long v = strtoll(n->text, &end, 0);
  if (errno != 0 || end == n->text || *end != '\0') {
    *err = fc_fmt("field '%s' expects an integer, got '%s'", n->key, n->text);
    return false;
  }
  *dst = (int64_t)v;
  return true;
}

static bool
rd_bool(const fc_node* n, bool* dst, char** err)
{
  if (!rd_scalar(n, err)) {
    return false;
  }
  const char* t = n->text;
  if (!strcmp(t, "true") || !strcmp(t, "True") || !strcmp(t, "t") ||
      !strcmp(t, "1")) {
    *dst = true;
    return true;
  }
  if (!strcmp(t, "false") || !strcmp(t, "False") || !strcmp(t, "f") ||
      !strcmp(t, "0")) {
    *dst = false;
    return true;
  }
  *err = fc_fmt("field '%s' expects a bool, got '%s'", n->key, t);
  return false;
}

static bool
rd_msg(const fc_node* n, char** err)
{
  if (n->kind != FC_NODE_MESSAGE) {
    *err = fc_fmt("field '%s' expects a message", n->key);
    return false;
  }
  return true;
}

static bool
rd_dtype(const fc_node* n, TRITONSERVER_DataType* dst, char** err)
{
  if (!rd_scalar(n, err)) {
    return false;
  }
  TRITONSERVER_DataType d = fc_config_dtype_parse(n->text);
  if ((int)d < 0) {
    char* end = NULL;
    long v = strtol(n->text, &end, 10);
    if (end != n->text && *end == '\0' && v >= 0 && v <= 14) {
      d = (TRITONSERVER_DataType)v;
    } else {
      *err = fc_fmt(
          "unknown enumeration value '%s' for field '%s'", n->text, n->key);
      return false;
    }
  }
  *dst = d;
  return true;
}

static bool
rd_kind(const fc_node* n, TRITONSERVER_InstanceGroupKind* dst, char** err)
{
  if (!rd_scalar(n, err)) {
    return false;
  }
  static const struct {
    const char* name;
    int proto_value;
    TRITONSERVER_InstanceGroupKind kind;
  } kinds[] = {
      {"KIND_AUTO", 0, TRITONSERVER_INSTANCEGROUPKIND_AUTO},
      {"KIND_GPU", 1, TRITONSERVER_INSTANCEGROUPKIND_GPU},
      {"KIND_CPU", 2, TRITONSERVER_INSTANCEGROUPKIND_CPU},
      {"KIND_MODEL", 3, TRITONSERVER_INSTANCEGROUPKIND_MODEL},
  };
  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); ++i) {
    char num[4];
    num[0] = (char)('0' + kinds[i].proto_value);
    num[1] = '\0';
    if (!strcmp(n->text, kinds[i].name) || !strcmp(n->text, num)) {
      *dst = kinds[i].kind;
      return true;
    }
  }
  *err = fc_fmt("unknown enumeration value '%s' for field 'kind'", n->text);
  return false;
}

static void
push_i64(int64_t** arr, size_t* n, int64_t v)
{
  *arr = fc_xrealloc(*arr, (*n + 1) * sizeof(int64_t));
  (*arr)[(*n)++] = v;
}

/* ---- messages ---- */
static bool
rd_io(const fc_node* m, fc_io* io, bool is_input, char** err)
{
  if (!rd_msg(m, err)) {
    return false;
  }
  io->dtype = TRITONSERVER_TYPE_INVALID;
  for (const fc_node* f = m->child; f; f = f->next) {
    bool ok = true;
    if (!strcmp(f->key, "name")) {
      ok = rd_string(f, &io->name, err);
    } else if (!strcmp(f->key, "data_type")) {
      ok = rd_dtype(f, &io->dtype, err);
    } else if (!strcmp(f->key, "dims")) {
      int64_t v;
      ok = rd_int(f, &v, err);
      if (ok) {
        push_i64(&io->dims, &io->ndims, v);
      }
    } else if (!strcmp(f->key, "reshape")) {
      ok = rd_msg(f, err);
      io->has_reshape = true;
      for (const fc_node* s = ok ? f->child : NULL; s; s = s->next) {
        if (!strcmp(s->key, "shape")) {
          int64_t v;
          if (!(ok = rd_int(s, &v, err))) {
            break;
          }
          push_i64(&io->reshape, &io->nreshape, v);
        }
      }
    } else if (!strcmp(f->key, "optional") && is_input) {
      ok = rd_bool(f, &io->optional, err);
    } else if (!strcmp(f->key, "is_shape_tensor")) {
      ok = rd_bool(f, &io->is_shape_tensor, err);
    } else if (!strcmp(f->key, "allow_ragged_batch") && is_input) {
      ok = rd_bool(f, &io->allow_ragged_batch, err);
    } else if (!strcmp(f->key, "label_filename") && !is_input) {
      ok = rd_string(f, &io->label_filename, err);
    }
    if (!ok) {
      return false;
    }
  }
  return true;
}

static bool
rd_group(const fc_node* m, fc_igroup* g, char** err)
{
  if (!rd_msg(m, err)) {
    return false;
  }
  g->kind = TRITONSERVER_INSTANCEGROUPKIND_AUTO;
  for (const fc_node* f = m->child; f; f = f->next) {
    bool ok = true;
    if (!strcmp(f->key, "name")) {
      ok = rd_string(f, &g->name, err);
    } else if (!strcmp(f->key, "count")) {
      ok = rd_int(f, &g->count, err);
    } else if (!strcmp(f->key, "kind")) {
      ok = rd_kind(f, &g->kind, err);
    }
    if (!ok) {
      return false;
    }
  }
  return true;
}

static void
add_param(fc_config* c, const char* key, const char* value)
{
  for (size_t i = 0; i < c->nparams; ++i) {
    if (!strcmp(c->params[i].key, key)) { /* maps keep the last value */
      free(c->params[i].value);
      c->params[i].value = fc_strdup(value);
      return;
    }
  }
  c->params = fc_xrealloc(c->params, (c->nparams + 1) * sizeof(fc_kv));
  c->params[c->nparams].key = fc_strdup(key);
  c->params[c->nparams].value = fc_strdup(value);
  c->nparams++;
}

static bool
rd_param_value(const fc_node* v, char** out, char** err)
{
  if (!rd_msg(v, err)) {
    return false;
  }
  const fc_node* sv = fc_node_find(v, "string_value");
  if (sv == NULL) {
    *out = fc_strdup("");
    return true;
  }
  *out = NULL;
  return rd_string(sv, out, err);
}

/* pbtxt: parameters { key: "k" value { string_value: "v" } }
 * JSON:  "parameters": { "k": { "string_value": "v" } } */
static bool
rd_parameters(const fc_node* m, fc_config* c, char** err)
{
  if (!rd_msg(m, err)) {
    return false;
  }
  const fc_node* key = fc_node_find(m, "key");
  if (key != NULL && key->kind == FC_NODE_SCALAR) {
    char* k = NULL;
    char* v = NULL;
    if (!rd_string(key, &k, err)) {
      return false;
    }
    const fc_node* val = fc_node_find(m, "value");
    if (val != NULL && !rd_param_value(val, &v, err)) {
      free(k);
      return false;
    }
    add_param(c, k, v ? v : "");
    free(k);
    free(v);
    return true;
  }
  for (const fc_node* e = m->child; e; e = e->next) {
    char* v = NULL;
    if (!rd_param_value(e, &v, err)) {
      return false;
    }
    add_param(c, e->key, v);
    free(v);
  }
  return true;
}

static bool
rd_queue_policy(const fc_node* m, fc_config* c, char** err)
{
  if (!rd_msg(m, err)) {
    return false;
  }
  c->has_default_queue_policy = true;
  for (const fc_node* f = m->child; f; f = f->next) {
    bool ok = true;
    if (!strcmp(f->key, "timeout_action")) {
      ok = rd_scalar(f, err);
      if (ok) {
        if (!strcmp(f->text, "REJECT") || !strcmp(f->text, "0")) {
          c->queue_timeout_action = 0;
        } else if (!strcmp(f->text, "DELAY") || !strcmp(f->text, "1")) {
          c->queue_timeout_action = 1;
        } else {
          *err = fc_fmt(
              "unknown enumeration value '%s' for field '%s'", f->text, f->key);
          ok = false;
        }
      }
    } else if (!strcmp(f->key, "default_timeout_microseconds")) {
      ok = rd_int(f, &c->queue_default_timeout_us, err);
    } else if (!strcmp(f->key, "allow_timeout_override")) {
      ok = rd_bool(f, &c->queue_allow_timeout_override, err);
    } else if (!strcmp(f->key, "max_queue_size")) {
      ok = rd_int(f, &c->max_queue_size, err);
    }
    if (!ok) {
      return false;
    }
  }
  return true;
}

static bool
rd_dynamic_batching(const fc_node* m, fc_config* c, char** err)
{
  if (!rd_msg(m, err)) {
    return false;
  }
  c->has_dynamic_batching = true;
  for (const fc_node* f = m->child; f; f = f->next) {
    bool ok = true;
    int64_t v;
    if (!strcmp(f->key, "preferred_batch_size")) {
      ok = rd_int(f, &v, err);
      if (ok) {
        push_i64(&c->preferred_batch_sizes, &c->npreferred, v);
      }
    } else if (!strcmp(f->key, "max_queue_delay_microseconds")) {
      ok = rd_int(f, &c->max_queue_delay_us, err);
    } else if (!strcmp(f->key, "preserve_ordering")) {
      ok = rd_bool(f, &c->preserve_ordering, err);
    } else if (!strcmp(f->key, "priority_levels")) {
      ok = rd_int(f, &c->priority_levels, err);
    } else if (!strcmp(f->key, "default_priority_level")) {
      ok = rd_int(f, &c->default_priority_level, err);
    } else if (!strcmp(f->key, "default_queue_policy")) {
      ok = rd_queue_policy(f, c, err);
    }
    if (!ok) {
      return false;
    }
  }
  return true;
}

static bool
rd_version_policy(const fc_node* m, fc_config* c, char** err)
{
  if (!rd_msg(m, err)) {
    return false;
  }
  for (const fc_node* f = m->child; f; f = f->next) {
    if (!strcmp(f->key, "latest")) {
      if (!rd_msg(f, err)) {
        return false;
      }
      c->vp_kind = FC_VP_LATEST;
      c->vp_latest = 1;
      const fc_node* nv = fc_node_find(f, "num_versions");
      if (nv && !rd_int(nv, &c->vp_latest, err)) {
        return false;
      }
    } else if (!strcmp(f->key, "all")) {
      c->vp_kind = FC_VP_ALL;
    } else if (!strcmp(f->key, "specific")) {
      if (!rd_msg(f, err)) {
        return false;
      }
      c->vp_kind = FC_VP_SPECIFIC;
      for (const fc_node* v = f->child; v; v = v->next) {
        int64_t x;
        if (!strcmp(v->key, "versions")) {
          if (!rd_int(v, &x, err)) {
            return false;
          }
          push_i64(&c->vp_versions, &c->vp_nversions, x);
        }
      }
    }
  }
  return true;
}

fc_config*
fc_config_from_tree(const fc_node* root, char** err)
{
  fc_config* c = fc_xcalloc(1, sizeof(*c));
  c->vp_kind = FC_VP_LATEST;
  c->vp_latest = 1;
  char* e = NULL;
  bool ok = true;
  for (const fc_node* f = root->child; f && ok; f = f->next) {
    const char* k = f->key;
    if (!strcmp(k, "name")) {
      ok = rd_string(f, &c->name, &e);
    } else if (!strcmp(k, "platform")) {
      ok = rd_string(f, &c->platform, &e);
    } else if (!strcmp(k, "backend")) {
      ok = rd_string(f, &c->backend, &e);
    } else if (!strcmp(k, "runtime")) {
      ok = rd_string(f, &c->runtime, &e);
    } else if (!strcmp(k, "default_model_filename")) {
      ok = rd_string(f, &c->default_model_filename, &e);
    } else if (!strcmp(k, "max_batch_size")) {
      ok = rd_int(f, &c->max_batch_size, &e);
    } else if (!strcmp(k, "input") || !strcmp(k, "output")) {
      bool in = (k[0] == 'i');
      fc_io** arr = in ? &c->inputs : &c->outputs;
      size_t* n = in ? &c->ninputs : &c->noutputs;
      *arr = fc_xrealloc(*arr, (*n + 1) * sizeof(fc_io));
      memset(&(*arr)[*n], 0, sizeof(fc_io));
      (*n)++;
      ok = rd_io(f, &(*arr)[*n - 1], in, &e);
    } else if (!strcmp(k, "instance_group")) {
      c->groups = fc_xrealloc(c->groups, (c->ngroups + 1) * sizeof(fc_igroup));
      memset(&c->groups[c->ngroups], 0, sizeof(fc_igroup));
      c->ngroups++;
      ok = rd_group(f, &c->groups[c->ngroups - 1], &e);
    } else if (!strcmp(k, "model_transaction_policy")) {
      ok = rd_msg(f, &e);
      c->has_txn_policy = true;
      const fc_node* d = ok ? fc_node_find(f, "decoupled") : NULL;
      if (d) {
        ok = rd_bool(d, &c->decoupled, &e);
      }
    } else if (!strcmp(k, "parameters")) {
      ok = rd_parameters(f, c, &e);
    } else if (!strcmp(k, "dynamic_batching")) {
      ok = rd_dynamic_batching(f, c, &e);
    } else if (!strcmp(k, "version_policy")) {
      ok = rd_version_policy(f, c, &e);
    }
    /* any other field is accepted and ignored */
  }
  if (!ok) {
    fc_config_free(c);
    if (err) {
      *err = e;
    } else {
      free(e);
    }
    return NULL;
  }
  return c;
}

static void
io_free(fc_io* io)
{
  free(io->name);
  free(io->dims);
  free(io->reshape);
  free(io->label_filename);
}

void
fc_config_free(fc_config* c)
{
  if (c == NULL) {
    return;
  }
  free(c->name);
  free(c->platform);
  free(c->backend);
  free(c->runtime);
  free(c->default_model_filename);
  for (size_t i = 0; i < c->ninputs; ++i) {
    io_free(&c->inputs[i]);
  }
  free(c->inputs);
  for (size_t i = 0; i < c->noutputs; ++i) {
    io_free(&c->outputs[i]);
  }
  free(c->outputs);
  for (size_t i = 0; i < c->ngroups; ++i) {
    free(c->groups[i].name);
  }
  free(c->groups);
  for (size_t i = 0; i < c->nparams; ++i) {
    free(c->params[i].key);
    free(c->params[i].value);
  }
  free(c->params);
  free(c->preferred_batch_sizes);
  free(c->vp_versions);
  free(c);
}

/* Real core (NormalizeModelConfig, AutoCompleteBackendFields): the model's
 * name where the config has none; empty platform, backend and runtime;
 * model.py as the python backend's default file; at least one instance
 * group, each named <model>_<index>, AUTO resolved to CPU (as on a CPU-only
 * server), a count of at least 1; empty label file names. */
void
fc_config_normalize(fc_config* c, const char* model_name)
{
  if (c->name == NULL || c->name[0] == '\0') {
    free(c->name);
    c->name = fc_strdup(model_name);
  }
  if (c->platform == NULL) {
    c->platform = fc_strdup("");
  }
  if (c->backend == NULL) {
    c->backend = fc_strdup("");
  }
  if (c->runtime == NULL) {
    c->runtime = fc_strdup("");
  }
  if (c->default_model_filename == NULL) {
    c->default_model_filename =
        fc_strdup(strcmp(c->backend, "python") == 0 ? "model.py" : "");
  }
  if (c->ngroups == 0) {
    c->groups = fc_xcalloc(1, sizeof(fc_igroup));
    c->ngroups = 1;
  }
  for (size_t i = 0; i < c->ngroups; ++i) {
    fc_igroup* g = &c->groups[i];
    if (g->name == NULL || g->name[0] == '\0') {
      free(g->name);
      g->name = fc_fmt("%s_%zu", c->name, i);
    }
    /* No GPUs here: AUTO resolves to CPU, like a CPU-only server. */
    if (g->kind == TRITONSERVER_INSTANCEGROUPKIND_AUTO) {
      g->kind = TRITONSERVER_INSTANCEGROUPKIND_CPU;
    }
    if (g->count < 1) {
      g->count = 1;
    }
  }
  for (size_t i = 0; i < c->noutputs; ++i) {
    if (c->outputs[i].label_filename == NULL) {
      c->outputs[i].label_filename = fc_strdup("");
    }
  }
}

const fc_io*
fc_config_input(const fc_config* c, const char* name)
{
  for (size_t i = 0; i < c->ninputs; ++i) {
    if (c->inputs[i].name && !strcmp(c->inputs[i].name, name)) {
      return &c->inputs[i];
    }
  }
  return NULL;
}

const fc_io*
fc_config_output(const fc_config* c, const char* name)
{
  for (size_t i = 0; i < c->noutputs; ++i) {
    if (c->outputs[i].name && !strcmp(c->outputs[i].name, name)) {
      return &c->outputs[i];
    }
  }
  return NULL;
}

const char*
fc_config_param(const fc_config* c, const char* key)
{
  for (size_t i = 0; i < c->nparams; ++i) {
    if (!strcmp(c->params[i].key, key)) {
      return c->params[i].value;
    }
  }
  return NULL;
}

size_t
fc_config_instance_count(const fc_config* c)
{
  size_t n = 0;
  for (size_t i = 0; i < c->ngroups; ++i) {
    n += (size_t)(c->groups[i].count > 0 ? c->groups[i].count : 1);
  }
  return n ? n : 1;
}

/* ---- JSON output (shape of the real core's config_version 1) ---- */
static void
j_dims(fc_sb* sb, const int64_t* d, size_t n)
{
  fc_sb_putc(sb, '[');
  for (size_t i = 0; i < n; ++i) {
    fc_sb_printf(sb, i ? ",%lld" : "%lld", (long long)d[i]);
  }
  fc_sb_putc(sb, ']');
}

static const char*
j_bool(bool b)
{
  return b ? "true" : "false";
}

static const char*
kind_name(TRITONSERVER_InstanceGroupKind k)
{
  switch (k) {
    case TRITONSERVER_INSTANCEGROUPKIND_GPU:
      return "KIND_GPU";
    case TRITONSERVER_INSTANCEGROUPKIND_CPU:
      return "KIND_CPU";
    case TRITONSERVER_INSTANCEGROUPKIND_MODEL:
      return "KIND_MODEL";
    default:
      return "KIND_AUTO";
  }
}

static void
j_io(fc_sb* sb, const fc_io* io, bool is_input)
{
  fc_sb_puts(sb, "{\"name\":");
  fc_json_str(sb, io->name ? io->name : "");
  fc_sb_printf(sb, ",\"data_type\":\"%s\"", fc_config_dtype_name(io->dtype));
  if (is_input) {
    fc_sb_puts(sb, ",\"format\":\"FORMAT_NONE\"");
  }
  fc_sb_puts(sb, ",\"dims\":");
  j_dims(sb, io->dims, io->ndims);
  if (io->has_reshape) {
    fc_sb_puts(sb, ",\"reshape\":{\"shape\":");
    j_dims(sb, io->reshape, io->nreshape);
    fc_sb_putc(sb, '}');
  }
  if (is_input) {
    fc_sb_printf(
        sb,
        ",\"is_shape_tensor\":%s,\"allow_ragged_batch\":%s,\"optional\":%s,"
        "\"is_non_linear_format_io\":false}",
        j_bool(io->is_shape_tensor), j_bool(io->allow_ragged_batch),
        j_bool(io->optional));
  } else {
    fc_sb_puts(sb, ",\"label_filename\":");
    fc_json_str(sb, io->label_filename ? io->label_filename : "");
    fc_sb_printf(
        sb, ",\"is_shape_tensor\":%s,\"is_non_linear_format_io\":false}",
        j_bool(io->is_shape_tensor));
  }
}

char*
fc_config_to_json(const fc_config* c)
{
  fc_sb sb;
  fc_sb_init(&sb);
  fc_sb_puts(&sb, "{\"name\":");
  fc_json_str(&sb, c->name ? c->name : "");
  fc_sb_puts(&sb, ",\"platform\":");
  fc_json_str(&sb, c->platform ? c->platform : "");
  fc_sb_puts(&sb, ",\"backend\":");
  fc_json_str(&sb, c->backend ? c->backend : "");
  fc_sb_puts(&sb, ",\"runtime\":");
  fc_json_str(&sb, c->runtime ? c->runtime : "");

  fc_sb_puts(&sb, ",\"version_policy\":");
  if (c->vp_kind == FC_VP_ALL) {
    fc_sb_puts(&sb, "{\"all\":{}}");
  } else if (c->vp_kind == FC_VP_SPECIFIC) {
    fc_sb_puts(&sb, "{\"specific\":{\"versions\":");
    j_dims(&sb, c->vp_versions, c->vp_nversions);
    fc_sb_puts(&sb, "}}");
  } else {
    fc_sb_printf(
        &sb, "{\"latest\":{\"num_versions\":%lld}}", (long long)c->vp_latest);
  }
  fc_sb_printf(&sb, ",\"max_batch_size\":%lld", (long long)c->max_batch_size);

  fc_sb_puts(&sb, ",\"input\":[");
  for (size_t i = 0; i < c->ninputs; ++i) {
    if (i) {
      fc_sb_putc(&sb, ',');
    }
    j_io(&sb, &c->inputs[i], true);
  }
  fc_sb_puts(&sb, "],\"output\":[");
  for (size_t i = 0; i < c->noutputs; ++i) {
    if (i) {
      fc_sb_putc(&sb, ',');
    }
    j_io(&sb, &c->outputs[i], false);
  }
  fc_sb_puts(
      &sb,
      "],\"batch_input\":[],\"batch_output\":[],\"optimization\":{"
      "\"priority\":\"PRIORITY_DEFAULT\",\"input_pinned_memory\":{\"enable\":"
      "true},\"output_pinned_memory\":{\"enable\":true},"
      "\"gather_kernel_buffer_threshold\":0,\"eager_batching\":false}");

  if (c->has_dynamic_batching) {
    fc_sb_puts(&sb, ",\"dynamic_batching\":{\"preferred_batch_size\":");
    j_dims(&sb, c->preferred_batch_sizes, c->npreferred);
    fc_sb_printf(
        &sb,
        ",\"max_queue_delay_microseconds\":%lld,\"preserve_ordering\":%s,"
        "\"priority_levels\":%lld,\"default_priority_level\":%lld",
        (long long)c->max_queue_delay_us, j_bool(c->preserve_ordering),
        (long long)c->priority_levels, (long long)c->default_priority_level);
    if (c->has_default_queue_policy) {
      fc_sb_printf(
          &sb,
          ",\"default_queue_policy\":{\"timeout_action\":\"%s\","
          "\"default_timeout_microseconds\":%lld,\"allow_timeout_override\":%s,"
          "\"max_queue_size\":%lld}",
          c->queue_timeout_action == 1 ? "DELAY" : "REJECT",
          (long long)c->queue_default_timeout_us,
          j_bool(c->queue_allow_timeout_override), (long long)c->max_queue_size);
    }
    fc_sb_puts(&sb, ",\"priority_queue_policy\":{}}");
  }

  fc_sb_puts(&sb, ",\"instance_group\":[");
  for (size_t i = 0; i < c->ngroups; ++i) {
    const fc_igroup* g = &c->groups[i];
    if (i) {
      fc_sb_putc(&sb, ',');
    }
    fc_sb_puts(&sb, "{\"name\":");
    fc_json_str(&sb, g->name ? g->name : "");
    fc_sb_printf(
        &sb,
        ",\"kind\":\"%s\",\"count\":%lld,\"gpus\":[],\"secondary_devices\":[],"
        "\"profile\":[],\"passive\":false,\"host_policy\":\"\"}",
        kind_name(g->kind), (long long)g->count);
  }
  fc_sb_puts(&sb, "],\"default_model_filename\":");
  fc_json_str(&sb, c->default_model_filename ? c->default_model_filename : "");
  fc_sb_puts(&sb, ",\"cc_model_filenames\":{},\"metric_tags\":{},\"parameters\":{");
  for (size_t i = 0; i < c->nparams; ++i) {
    if (i) {
      fc_sb_putc(&sb, ',');
    }
    fc_json_str(&sb, c->params[i].key);
    fc_sb_puts(&sb, ":{\"string_value\":");
    fc_json_str(&sb, c->params[i].value);
    fc_sb_putc(&sb, '}');
  }
  fc_sb_puts(&sb, "},\"model_warmup\":[]");
  if (c->has_txn_policy) {
    fc_sb_printf(
        &sb, ",\"model_transaction_policy\":{\"decoupled\":%s}",
        j_bool(c->decoupled));
  }
  fc_sb_putc(&sb, '}');
  return fc_sb_take(&sb);
}
