/* server_info.c - the JSON documents: server / model metadata, model
 * configuration, repository index and model statistics, each with the
 * fields, order and errors of the real core's document (named at each
 * function with "Real core:"). */
#include "fake_core.h"

#include <stdlib.h>
#include <string.h>

static int
cmp_model(const void* a, const void* b)
{
  const fc_model* x = *(fc_model* const*)a;
  const fc_model* y = *(fc_model* const*)b;
  int c = strcmp(x->name, y->name);
  if (c != 0) {
    return c;
  }
  return (x->version > y->version) - (x->version < y->version);
}

/* Visible records (optionally READY only, optionally one name), sorted by
 * name then version. s->mu held. Caller frees the array. */
static fc_model**
collect_locked(fc_server* s, const char* name, bool ready_only, size_t* n)
{
  size_t cap = 8, k = 0;
  fc_model** out = fc_xcalloc(cap, sizeof(fc_model*));
  for (fc_model* m = s->models; m; m = m->next) {
    if (m->retired || (name && strcmp(m->name, name) != 0) ||
        (ready_only && m->state != FC_MS_READY)) {
      continue;
    }
    if (k == cap) {
      cap *= 2;
      out = fc_xrealloc(out, cap * sizeof(fc_model*));
    }
    out[k++] = m;
  }
  if (k > 1) {
    qsort(out, k, sizeof(fc_model*), cmp_model);
  }
  *n = k;
  return out;
}

TRITONSERVER_Error*
TRITONSERVER_ServerMetadata(
    TRITONSERVER_Server* server, TRITONSERVER_Message** server_metadata)
{
  if (server == NULL) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "server is null");
  }
  fc_server* s = (fc_server*)server;
  /* Real core (TRITONSERVER_ServerMetadata): name (the server id), version,
   * and the extensions InferenceServer's constructor lists, in its order; a
   * core built with statistics, tracing and logging (as Triton's container's
   * is, and as this fake is) lists all of them. */
  static const char* const exts[] = {
      "classification",    "sequence",
      "model_repository",  "model_repository(unload_dependents)",
      "schedule_policy",   "model_configuration",
      "system_shared_memory", "cuda_shared_memory",
      "binary_tensor_data", "parameters",
      "statistics",        "trace",
      "logging",
  };
  fc_sb sb;
  fc_sb_init(&sb);
  fc_sb_puts(&sb, "{\"name\":");
  fc_json_str(&sb, s->id);
  fc_sb_puts(&sb, ",\"version\":\"" FC_VERSION_STRING "\",\"extensions\":[");
  for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); ++i) {
    fc_sb_printf(&sb, i ? ",\"%s\"" : "\"%s\"", exts[i]);
  }
  fc_sb_puts(&sb, "]}");
  *server_metadata = fc_message_take(fc_sb_take(&sb));
  return NULL;
}

/* Real core (TRITONSERVER_ServerModelMetadata): each tensor's name, datatype
 * and shape, the shape led by -1 when the model batches. */
static void
io_metadata(fc_sb* sb, const fc_config* c, const fc_io* io, size_t n)
{
  fc_sb_putc(sb, '[');
  for (size_t i = 0; i < n; ++i) {
    fc_sb_puts(sb, i ? ",{\"name\":" : "{\"name\":");
    fc_json_str(sb, io[i].name);
    fc_sb_printf(
        sb, ",\"datatype\":\"%s\",\"shape\":[",
        TRITONSERVER_DataTypeString(io[i].dtype));
    bool first = true;
    if (c->max_batch_size >= 1) {
      fc_sb_puts(sb, "-1");
      first = false;
    }
    for (size_t d = 0; d < io[i].ndims; ++d) {
      fc_sb_printf(sb, first ? "%lld" : ",%lld", (long long)io[i].dims[d]);
      first = false;
    }
    fc_sb_puts(sb, "]}");
  }
  fc_sb_putc(sb, ']');
}

TRITONSERVER_Error*
TRITONSERVER_ServerModelMetadata(
    TRITONSERVER_Server* server, const char* model_name,
    const int64_t model_version, TRITONSERVER_Message** model_metadata)
{
  if (server == NULL) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "server is null");
  }
  fc_server* s = (fc_server*)server;
  fc_model* m = NULL;
  TRITONSERVER_Error* err = fc_server_get_model(s, model_name, model_version, &m);
  if (err) {
    return err;
  }
  fc_sb sb;
  fc_sb_init(&sb);
  pthread_mutex_lock(&s->mu);
  if (s->state != FC_SS_READY) {
    pthread_mutex_unlock(&s->mu);
    return fc_err(TRITONSERVER_ERROR_UNAVAILABLE, "Server not ready");
  }
  fc_sb_puts(&sb, "{\"name\":");
  fc_json_str(&sb, model_name);
  fc_sb_puts(&sb, ",\"versions\":[");
  /* Real core: the version asked for, or every READY version for -1; the
   * platform, or the backend where the config names none. */
  if (model_version != -1) {
    fc_sb_printf(&sb, "\"%lld\"", (long long)model_version);
  } else {
    size_t n = 0;
    fc_model** ready = collect_locked(s, model_name, true, &n);
    for (size_t i = 0; i < n; ++i) {
      fc_sb_printf(&sb, i ? ",\"%lld\"" : "\"%lld\"", (long long)ready[i]->version);
    }
    free(ready);
  }
  pthread_mutex_unlock(&s->mu);
  const fc_config* c = m->cfg;
  fc_sb_puts(&sb, "],\"platform\":");
  fc_json_str(&sb, c->platform[0] ? c->platform : c->backend);
  fc_sb_puts(&sb, ",\"inputs\":");
  io_metadata(&sb, c, c->inputs, c->ninputs);
  fc_sb_puts(&sb, ",\"outputs\":");
  io_metadata(&sb, c, c->outputs, c->noutputs);
  fc_sb_putc(&sb, '}');
  *model_metadata = fc_message_take(fc_sb_take(&sb));
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerModelConfig(
    TRITONSERVER_Server* server, const char* model_name,
    const int64_t model_version, const uint32_t config_version,
    TRITONSERVER_Message** model_config)
{
  if (server == NULL) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "server is null");
  }
  fc_model* m = NULL;
  TRITONSERVER_Error* err =
      fc_server_get_model((fc_server*)server, model_name, model_version, &m);
  if (err) {
    return err;
  }
  /* Real core (ModelConfigToJson): config version 1 only. */
  if (config_version != 1) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG,
        "model configuration version %u not supported, supported versions "
        "are: 1",
        config_version);
  }
  *model_config = fc_message_take(fc_config_to_json(m->cfg));
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerModelIndex(
    TRITONSERVER_Server* server, uint32_t flags,
    TRITONSERVER_Message** model_index)
{
  if (server == NULL) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "server is null");
  }
  fc_server* s = (fc_server*)server;
  /* Real core (ModelRepositoryManager::RepositoryIndex): every model of the
   * repositories, sorted by name then version; one never loaded has its name
   * alone; one found in two repositories is UNAVAILABLE with
   * MODEL_READY_REASON_DUPLICATE; READY filters to ready versions. */
  bool ready_only = (flags & TRITONSERVER_INDEX_FLAG_READY) != 0;
  pthread_mutex_lock(&s->mu);
  bool ready = (s->state == FC_SS_READY);
  pthread_mutex_unlock(&s->mu);
  if (!ready) {
    return fc_err(TRITONSERVER_ERROR_UNAVAILABLE, "Server not ready");
  }
  fc_repo_list repo;
  fc_repo_scan(s, &repo);
  fc_sb sb;
  fc_sb_init(&sb);
  fc_sb_putc(&sb, '[');
  bool first = true;
  pthread_mutex_lock(&s->mu);
  for (size_t i = 0; i < repo.n; ++i) {
    const fc_repo_entry* e = &repo.items[i];
    if (e->dup) {
      fc_sb_puts(&sb, first ? "{\"name\":" : ",{\"name\":");
      fc_json_str(&sb, e->name);
      fc_sb_puts(
          &sb, ",\"state\":\"UNAVAILABLE\",\"reason\":\"model appears in two "
               "or more repositories\"}");
      first = false;
      continue;
    }
    size_t n = 0;
    fc_model** recs = collect_locked(s, e->name, false, &n);
    if (n == 0 && !ready_only) {
      fc_sb_puts(&sb, first ? "{\"name\":" : ",{\"name\":");
      fc_json_str(&sb, e->name);
      fc_sb_putc(&sb, '}');
      first = false;
    }
    for (size_t k = 0; k < n; ++k) {
      fc_model* m = recs[k];
      if (ready_only && m->state != FC_MS_READY) {
        continue;
      }
      fc_sb_puts(&sb, first ? "{\"name\":" : ",{\"name\":");
      fc_json_str(&sb, m->name);
      fc_sb_printf(
          &sb, ",\"version\":\"%lld\",\"state\":\"%s\"", (long long)m->version,
          fc_model_state_str(m->state));
      if (m->reason[0]) {
        fc_sb_puts(&sb, ",\"reason\":");
        fc_json_str(&sb, m->reason);
      }
      fc_sb_putc(&sb, '}');
      first = false;
    }
    free(recs);
  }
  pthread_mutex_unlock(&s->mu);
  fc_sb_putc(&sb, ']');
  fc_repo_list_free(&repo);
  *model_index = fc_message_take(fc_sb_take(&sb));
  return NULL;
}

static void
duration(fc_sb* sb, const char* key, fc_duration d, bool comma)
{
  fc_sb_printf(
      sb, "%s\"%s\":{\"count\":%llu,\"ns\":%llu}", comma ? "," : "", key,
      (unsigned long long)d.count, (unsigned long long)d.ns);
}

/* Real core (TRITONSERVER_ServerModelStatistics): the statistics document of
 * one model version, fields in its order; the fake has no response cache
 * (cache_hit / cache_miss stay zero) and reports no memory usage. */
static void
model_stats(fc_sb* sb, fc_model* m)
{
  pthread_mutex_lock(&m->mu);
  fc_stats st = m->stats;
  fc_batch_stat* batches = NULL;
  if (st.nbatches) {
    batches = fc_xcalloc(st.nbatches, sizeof(fc_batch_stat));
    memcpy(batches, m->stats.batches, st.nbatches * sizeof(fc_batch_stat));
  }
  pthread_mutex_unlock(&m->mu);

  fc_sb_puts(sb, "{\"name\":");
  fc_json_str(sb, m->name);
  fc_sb_printf(
      sb,
      ",\"version\":\"%lld\",\"last_inference\":%llu,\"inference_count\":%llu,"
      "\"execution_count\":%llu,\"inference_stats\":{",
      (long long)m->version, (unsigned long long)st.last_inference_ms,
      (unsigned long long)st.inference_count,
      (unsigned long long)st.execution_count);
  fc_duration zero = {0, 0};
  duration(sb, "success", st.success, false);
  duration(sb, "fail", st.fail, true);
  duration(sb, "queue", st.queue, true);
  duration(sb, "compute_input", st.compute_input, true);
  duration(sb, "compute_infer", st.compute_infer, true);
  duration(sb, "compute_output", st.compute_output, true);
  duration(sb, "cache_hit", zero, true);
  duration(sb, "cache_miss", zero, true);
  fc_sb_puts(sb, "},\"response_stats\":{},\"batch_stats\":[");
  for (size_t i = 0; i < st.nbatches; ++i) {
    fc_sb_printf(
        sb, "%s{\"batch_size\":%llu", i ? "," : "",
        (unsigned long long)batches[i].batch_size);
    duration(sb, "compute_input", batches[i].input, true);
    duration(sb, "compute_infer", batches[i].infer, true);
    duration(sb, "compute_output", batches[i].output, true);
    fc_sb_putc(sb, '}');
  }
  free(batches);
  fc_sb_puts(sb, "],\"memory_usage\":[]}");
}

TRITONSERVER_Error*
TRITONSERVER_ServerModelStatistics(
    TRITONSERVER_Server* server, const char* model_name,
    const int64_t model_version, TRITONSERVER_Message** model_stats_out)
{
  if (server == NULL) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "server is null");
  }
  fc_server* s = (fc_server*)server;
  const char* name = (model_name && model_name[0]) ? model_name : NULL;
  pthread_mutex_lock(&s->mu);
  if (s->state != FC_SS_READY) {
    pthread_mutex_unlock(&s->mu);
    return fc_err(TRITONSERVER_ERROR_UNAVAILABLE, "Server not ready");
  }
  /* Real core: every READY version of every model for an empty name; an
   * unknown model or version is INVALID_ARG with its wording. */
  size_t n = 0;
  fc_model** recs = collect_locked(s, name, true, &n);
  pthread_mutex_unlock(&s->mu);
  if (name != NULL && n == 0) {
    free(recs);
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG, "requested model '%s' is not available",
        name);
  }
  if (name != NULL && model_version != -1) {
    fc_model* pick = NULL;
    for (size_t i = 0; i < n; ++i) {
      if (recs[i]->version == model_version) {
        pick = recs[i];
      }
    }
    if (pick == NULL) {
      free(recs);
      return fc_err(
          TRITONSERVER_ERROR_INVALID_ARG,
          "requested model version is not available for model '%s'", name);
    }
    recs[0] = pick;
    n = 1;
  }
  fc_sb sb;
  fc_sb_init(&sb);
  fc_sb_puts(&sb, "{\"model_stats\":[");
  for (size_t i = 0; i < n; ++i) {
    if (i) {
      fc_sb_putc(&sb, ',');
    }
    model_stats(&sb, recs[i]);
  }
  fc_sb_puts(&sb, "]}");
  free(recs);
  *model_stats_out = fc_message_take(fc_sb_take(&sb));
  return NULL;
}
