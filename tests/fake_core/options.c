/* options.c - TRITONSERVER_ServerOptions: every setter stores its value.
 * Log settings also take effect immediately and process-wide, as in the
 * real core. Real core (TritonServerOptions and the setters of the C API):
 * the defaults the options start with and the setters' own checks, named
 * where they are made; the settings the fake has no use for are accepted
 * and kept. */
#include "fake_core.h"

#include <stdlib.h>
#include <string.h>

#define OPT_CHECK(o)                                                    \
  do {                                                                  \
    if ((o) == NULL) {                                                  \
      return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "options is null"); \
    }                                                                   \
  } while (0)

static void
set_str(char** dst, const char* v)
{
  free(*dst);
  *dst = fc_strdup(v);
}

static void
add_setting(
    TRITONSERVER_ServerOptions* o, const char* kind, const char* a,
    const char* b, const char* c)
{
  if (o->nsettings == o->settings_cap) {
    o->settings_cap = o->settings_cap ? o->settings_cap * 2 : 8;
    o->settings = fc_xrealloc(o->settings, o->settings_cap * sizeof(fc_triple));
  }
  fc_triple* t = &o->settings[o->nsettings++];
  t->a = fc_fmt("%s:%s", kind, a ? a : "");
  t->b = fc_strdup(b);
  t->c = fc_strdup(c);
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsNew(TRITONSERVER_ServerOptions** options)
{
  TRITONSERVER_ServerOptions* o = fc_xcalloc(1, sizeof(*o));
  o->server_id = fc_strdup("triton");
  o->control_mode = TRITONSERVER_MODEL_CONTROL_POLL; /* real default */
  o->strict_model_config = true;
  o->model_config_name = fc_strdup("");
  o->rate_limit_mode = TRITONSERVER_RATE_LIMIT_OFF;
  o->pinned_memory_pool_size = 1u << 28;
  o->exit_on_error = true;
  o->strict_readiness = true;
  o->exit_timeout = 30;
  o->model_load_thread_count = 4;
  o->model_load_retry_count = FC_OPTION_POISON_U32; /* uninitialised in the real core */
  o->peer_access = FC_OPTION_POISON_BOOL;       /* uninitialised in the real core */
  o->log_info = o->log_warn = o->log_error = true;
  o->log_format = TRITONSERVER_LOG_DEFAULT;
  o->metrics = true;
  o->metrics_interval_ms = 2000;
  o->backend_dir = fc_strdup("/opt/tritonserver/backends");
  o->repoagent_dir = fc_strdup("/opt/tritonserver/repoagents");
  o->cache_dir = fc_strdup("/opt/tritonserver/caches");
  fc_count_inc(FC_K_SERVER_OPTIONS);
  *options = o;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsDelete(TRITONSERVER_ServerOptions* o)
{
  if (o == NULL) {
    return NULL;
  }
  free(o->server_id);
  fc_strset_clear(&o->repo_paths);
  fc_strset_clear(&o->startup_models);
  free(o->model_config_name);
  free(o->log_file);
  free(o->backend_dir);
  free(o->repoagent_dir);
  free(o->cache_dir);
  for (size_t i = 0; i < o->nsettings; ++i) {
    free(o->settings[i].a);
    free(o->settings[i].b);
    free(o->settings[i].c);
  }
  free(o->settings);
  free(o);
  fc_count_dec(FC_K_SERVER_OPTIONS);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetServerId(
    TRITONSERVER_ServerOptions* o, const char* server_id)
{
  OPT_CHECK(o);
  set_str(&o->server_id, server_id);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetModelRepositoryPath(
    TRITONSERVER_ServerOptions* o, const char* path)
{
  OPT_CHECK(o);
  fc_strset_add(&o->repo_paths, path ? path : ""); /* a set, like the core */
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetModelControlMode(
    TRITONSERVER_ServerOptions* o, TRITONSERVER_ModelControlMode mode)
{
  OPT_CHECK(o);
  switch (mode) {
    case TRITONSERVER_MODEL_CONTROL_NONE:
    case TRITONSERVER_MODEL_CONTROL_POLL:
    case TRITONSERVER_MODEL_CONTROL_EXPLICIT:
      o->control_mode = mode;
      return NULL;
  }
  return fc_err(
      TRITONSERVER_ERROR_INVALID_ARG, "unknown control mode '%d'", (int)mode);
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetStartupModel(
    TRITONSERVER_ServerOptions* o, const char* model_name)
{
  OPT_CHECK(o);
  fc_strset_add(&o->startup_models, model_name ? model_name : "");
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetStrictModelConfig(
    TRITONSERVER_ServerOptions* o, bool strict)
{
  OPT_CHECK(o);
  o->strict_model_config = strict;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetModelConfigName(
    TRITONSERVER_ServerOptions* o, const char* name)
{
  OPT_CHECK(o);
  set_str(&o->model_config_name, name);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetRateLimiterMode(
    TRITONSERVER_ServerOptions* o, TRITONSERVER_RateLimitMode mode)
{
  OPT_CHECK(o);
  if (mode != TRITONSERVER_RATE_LIMIT_OFF &&
      mode != TRITONSERVER_RATE_LIMIT_EXEC_COUNT) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG, "unknown rate limit mode '%d'",
        (int)mode);
  }
  o->rate_limit_mode = mode;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsAddRateLimiterResource(
    TRITONSERVER_ServerOptions* o, const char* resource_name,
    const size_t resource_count, const int device)
{
  OPT_CHECK(o);
  char* count = fc_fmt("%zu", resource_count);
  char* dev = fc_fmt("%d", device);
  add_setting(o, "rate_limiter_resource", resource_name, count, dev);
  free(count);
  free(dev);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetPinnedMemoryPoolByteSize(
    TRITONSERVER_ServerOptions* o, uint64_t size)
{
  OPT_CHECK(o);
  o->pinned_memory_pool_size = size;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetCudaMemoryPoolByteSize(
    TRITONSERVER_ServerOptions* o, int gpu_device, uint64_t size)
{
  OPT_CHECK(o);
  char* dev = fc_fmt("%d", gpu_device);
  char* sz = fc_fmt("%llu", (unsigned long long)size);
  add_setting(o, "cuda_memory_pool", dev, sz, "");
  free(dev);
  free(sz);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetCudaVirtualAddressSize(
    TRITONSERVER_ServerOptions* o, int gpu_device, size_t size)
{
  OPT_CHECK(o);
  char* dev = fc_fmt("%d", gpu_device);
  char* sz = fc_fmt("%zu", size);
  add_setting(o, "cuda_virtual_address_size", dev, sz, "");
  free(dev);
  free(sz);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetCacheConfig(
    TRITONSERVER_ServerOptions* o, const char* cache_name,
    const char* config_json)
{
  OPT_CHECK(o);
  add_setting(o, "cache", cache_name, config_json, "");
  return NULL;
}
TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetCacheDirectory(
    TRITONSERVER_ServerOptions* o, const char* cache_dir)
{
  OPT_CHECK(o);
  set_str(&o->cache_dir, cache_dir);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetMinSupportedComputeCapability(
    TRITONSERVER_ServerOptions* o, double cc)
{
  OPT_CHECK(o);
  o->min_compute_capability = cc;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetExitOnError(TRITONSERVER_ServerOptions* o, bool exit)
{
  OPT_CHECK(o);
  o->exit_on_error = exit;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetStrictReadiness(
    TRITONSERVER_ServerOptions* o, bool strict)
{
  OPT_CHECK(o);
  o->strict_readiness = strict;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetExitTimeout(
    TRITONSERVER_ServerOptions* o, unsigned int timeout)
{
  OPT_CHECK(o);
  o->exit_timeout = timeout;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetBufferManagerThreadCount(
    TRITONSERVER_ServerOptions* o, unsigned int thread_count)
{
  OPT_CHECK(o);
  o->buffer_manager_thread_count = thread_count;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetModelLoadThreadCount(
    TRITONSERVER_ServerOptions* o, unsigned int thread_count)
{
  OPT_CHECK(o);
  o->model_load_thread_count = thread_count;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetModelLoadRetryCount(
    TRITONSERVER_ServerOptions* o, unsigned int retry_count)
{
  OPT_CHECK(o);
  o->model_load_retry_count = retry_count;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetModelNamespacing(
    TRITONSERVER_ServerOptions* o, bool enable_namespace)
{
  OPT_CHECK(o);
  o->model_namespacing = enable_namespace;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetEnablePeerAccess(
    TRITONSERVER_ServerOptions* o, bool enable_peer_access)
{
  OPT_CHECK(o);
  o->peer_access = enable_peer_access;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetLogFile(TRITONSERVER_ServerOptions* o, const char* file)
{
  OPT_CHECK(o);
  TRITONSERVER_Error* err = fc_log_set_file(file);
  if (err == NULL) {
    set_str(&o->log_file, file);
  }
  return err;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetLogInfo(TRITONSERVER_ServerOptions* o, bool log)
{
  OPT_CHECK(o);
  o->log_info = log;
  fc_log_set_enabled(TRITONSERVER_LOG_INFO, log);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetLogWarn(TRITONSERVER_ServerOptions* o, bool log)
{
  OPT_CHECK(o);
  o->log_warn = log;
  fc_log_set_enabled(TRITONSERVER_LOG_WARN, log);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetLogError(TRITONSERVER_ServerOptions* o, bool log)
{
  OPT_CHECK(o);
  o->log_error = log;
  fc_log_set_enabled(TRITONSERVER_LOG_ERROR, log);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetLogFormat(
    TRITONSERVER_ServerOptions* o, const TRITONSERVER_LogFormat format)
{
  OPT_CHECK(o);
  if (format != TRITONSERVER_LOG_DEFAULT && format != TRITONSERVER_LOG_ISO8601) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG, "unknown log format '%d'", (int)format);
  }
  o->log_format = format;
  fc_log_set_format(format);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetLogVerbose(TRITONSERVER_ServerOptions* o, int level)
{
  OPT_CHECK(o);
  o->log_verbose = level;
  fc_log_set_verbose(level);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetMetrics(TRITONSERVER_ServerOptions* o, bool metrics)
{
  OPT_CHECK(o);
  o->metrics = metrics;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetGpuMetrics(
    TRITONSERVER_ServerOptions* o, bool gpu_metrics)
{
  OPT_CHECK(o);
  o->gpu_metrics = gpu_metrics;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetCpuMetrics(
    TRITONSERVER_ServerOptions* o, bool cpu_metrics)
{
  OPT_CHECK(o);
  o->cpu_metrics = cpu_metrics;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetMetricsInterval(
    TRITONSERVER_ServerOptions* o, uint64_t metrics_interval_ms)
{
  OPT_CHECK(o);
  o->metrics_interval_ms = metrics_interval_ms;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetBackendDirectory(
    TRITONSERVER_ServerOptions* o, const char* backend_dir)
{
  OPT_CHECK(o);
  set_str(&o->backend_dir, backend_dir);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetRepoAgentDirectory(
    TRITONSERVER_ServerOptions* o, const char* repoagent_dir)
{
  OPT_CHECK(o);
  set_str(&o->repoagent_dir, repoagent_dir);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetModelLoadDeviceLimit(
    TRITONSERVER_ServerOptions* o, const TRITONSERVER_InstanceGroupKind kind,
    const int device_id, const double fraction)
{
  OPT_CHECK(o);
  if (device_id < 0) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG, "expects device ID >= 0, got %d",
        device_id);
  }
  if (fraction < 0.0 || fraction > 1.0) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG,
        "expects limit fraction to be in range [0.0, 1.0], got %f", fraction);
  }
  if (kind != TRITONSERVER_INSTANCEGROUPKIND_GPU) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG,
        "given device kind is not supported, got: %s",
        TRITONSERVER_InstanceGroupKindString(kind));
  }
  char* key = fc_fmt("model-load-gpu-limit-device-%d", device_id);
  char* val = fc_fmt("%f", fraction);
  add_setting(o, "backend", "", key, val);
  free(key);
  free(val);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetBackendConfig(
    TRITONSERVER_ServerOptions* o, const char* backend_name,
    const char* setting, const char* value)
{
  OPT_CHECK(o);
  add_setting(o, "backend", backend_name, setting, value);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetHostPolicy(
    TRITONSERVER_ServerOptions* o, const char* policy_name,
    const char* setting, const char* value)
{
  OPT_CHECK(o);
  if (setting == NULL ||
      (strcmp(setting, "numa-node") != 0 && strcmp(setting, "cpu-cores") != 0)) {
    return fc_err(
        TRITONSERVER_ERROR_UNSUPPORTED,
        "Unsupported host policy setting '%s' is specified, supported "
        "settings are 'numa-node', 'cpu-cores'",
        setting ? setting : "");
  }
  add_setting(o, "host_policy", policy_name, setting, value);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerOptionsSetMetricsConfig(
    TRITONSERVER_ServerOptions* o, const char* name, const char* setting,
    const char* value)
{
  OPT_CHECK(o);
  add_setting(o, "metrics", name, setting, value);
  return NULL;
}
