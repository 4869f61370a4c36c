/*
 * fake_core.h - private declarations shared by the fake core's sources.
 * Everything declared between the visibility pragmas stays out of the
 * library's dynamic symbol table; only the C API's functions (declared in
 * tritonffi_c_api.h, which tools/c_api.mjs generates from ffi/symbols.ts)
 * and the FC_EXPORT test extras are exported.
 */
#ifndef FAKE_CORE_H
#define FAKE_CORE_H

#define _GNU_SOURCE 1 /* RTLD_DEFAULT / RTLD_NOLOAD, st_mtim */

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tritonffi_c_api.h"

#define FC_EXPORT __attribute__((visibility("default")))
#define FC_API_MAJOR TRITONFFI_API_VERSION_MAJOR
#define FC_API_MINOR TRITONFFI_API_VERSION_MINOR

/* Test-only extras: live object counts (counts.c) and probes (probe.c). */
FC_EXPORT int64_t FAKECORE_LiveCount(const char* kind);
FC_EXPORT const void* FAKECORE_LastInputBase(void);
FC_EXPORT const void* FAKECORE_LastOutputBuffer(void);
FC_EXPORT int FAKECORE_MisuseCount(void);
FC_EXPORT const char* FAKECORE_LastRequestParameters(void);
FC_EXPORT uint64_t FAKECORE_LastRequestTimeoutUs(void);

#pragma GCC visibility push(hidden)

#define FC_VERSION_STRING "0.0.0"
/* What an option the real core leaves uninitialised holds until it is set (options.c). */
#define FC_OPTION_POISON_U32 0xA5A5A5A5u
#define FC_OPTION_POISON_BOOL 0xA5u
#define FC_UNUSED(x) ((void)(x))

/* ------------------------------------------------------------------ */
/* counts.c: live object accounting                                    */
/* ------------------------------------------------------------------ */
typedef enum {
  FC_K_ERROR,
  FC_K_SERVER_OPTIONS,
  FC_K_SERVER,
  FC_K_REQUEST,
  FC_K_RESPONSE,
  FC_K_ALLOCATOR,
  FC_K_BUFFER,
  FC_K_MESSAGE,
  FC_K_PARAMETER,
  FC_K_TRACE,
  FC_K_METRICS,
  FC_K_METRIC_FAMILY,
  FC_K_METRIC,
  FC_K_METRIC_ARGS,
  FC_K_COUNT
} fc_kind;

void fc_count_inc(fc_kind kind);
/* probe.c: addresses recorded for the zero-copy tests. */
void fc_probe_input(const void* base);
void fc_probe_output(const void* buffer);
void fc_probe_misuse(void);
void fc_count_dec(fc_kind kind);

/* handles.c: the live servers, requests and responses. A use or a delete of one that is not live
 * (deleted already, or never created) aborts the process, naming the function. */
void fc_handle_add(fc_kind kind, const void* p);
void fc_handle_check(fc_kind kind, const void* p, const char* fn);
void fc_handle_remove(fc_kind kind, const void* p, const char* fn);

/* ------------------------------------------------------------------ */
/* util.c: memory, strings, string builder, time                       */
/* ------------------------------------------------------------------ */
void* fc_xmalloc(size_t n);
void* fc_xcalloc(size_t n, size_t size);
void* fc_xrealloc(void* p, size_t n);
char* fc_strdup(const char* s);
char* fc_strndup(const char* s, size_t n);
char* fc_fmt(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
char* fc_vfmt(const char* fmt, va_list ap);

typedef struct {
  char* data;
  size_t len;
  size_t cap;
} fc_sb;

void fc_sb_init(fc_sb* sb);
void fc_sb_free(fc_sb* sb);
void fc_sb_putn(fc_sb* sb, const char* s, size_t n);
void fc_sb_puts(fc_sb* sb, const char* s);
void fc_sb_putc(fc_sb* sb, char c);
void fc_sb_printf(fc_sb* sb, const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));
char* fc_sb_take(fc_sb* sb); /* returns NUL-terminated buffer, resets sb */

/* Dims rendered like "[1,-1,3]". Caller frees. */
char* fc_dims_str(const int64_t* dims, size_t n);

uint64_t fc_now_ns(void);        /* monotonic */
void fc_sleep_ns(uint64_t ns);
uint64_t fc_wall_ms(void);       /* realtime, ms since epoch */
void fc_cond_init_mono(pthread_cond_t* cv);

/* Sorted set of unique strings. */
typedef struct {
  char** items;
  size_t n;
  size_t cap;
} fc_strset;

bool fc_strset_add(fc_strset* s, const char* v); /* false if present */
bool fc_strset_remove(fc_strset* s, const char* v);
bool fc_strset_has(const fc_strset* s, const char* v);
void fc_strset_clear(fc_strset* s);
void fc_strset_copy(fc_strset* dst, const fc_strset* src);

/* Thread-local marker for threads owned by the fake core. */
extern _Thread_local int fc_core_thread;

/* ------------------------------------------------------------------ */
/* types.c: datatype helpers                                           */
/* ------------------------------------------------------------------ */
/* Model-config spelling ("TYPE_INT32", "TYPE_STRING" for BYTES). */
const char* fc_config_dtype_name(TRITONSERVER_DataType dt);
/* Returns (TRITONSERVER_DataType)-1 for an unknown name. */
TRITONSERVER_DataType fc_config_dtype_parse(const char* s);

/* ------------------------------------------------------------------ */
/* errors.c                                                            */
/* ------------------------------------------------------------------ */
struct TRITONSERVER_Error {
  TRITONSERVER_Error_Code code;
  char* msg;
  bool owned_by_response;
};

TRITONSERVER_Error* fc_err(TRITONSERVER_Error_Code code, const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));
TRITONSERVER_Error* fc_unsupported(const char* fn);
/* Human text "<CodeString>: <message>" as the real core's Status::AsString. */
char* fc_err_as_string(TRITONSERVER_Error* e);
void fc_err_free(TRITONSERVER_Error* e); /* ignores ownership flag */
const char* fc_code_string(TRITONSERVER_Error_Code code);

/* ------------------------------------------------------------------ */
/* log.c                                                               */
/* ------------------------------------------------------------------ */
void fc_log_set_enabled(TRITONSERVER_LogLevel level, bool on);
void fc_log_set_verbose(int level);
void fc_log_set_format(TRITONSERVER_LogFormat format);
TRITONSERVER_Error* fc_log_set_file(const char* path);
bool fc_log_enabled(TRITONSERVER_LogLevel level);
void fc_log_at(
    TRITONSERVER_LogLevel level, const char* file, int line, const char* fmt,
    ...) __attribute__((format(printf, 4, 5)));
#define FC_LOG_INFO(...) \
  fc_log_at(TRITONSERVER_LOG_INFO, __FILE__, __LINE__, __VA_ARGS__)
#define FC_LOG_WARN(...) \
  fc_log_at(TRITONSERVER_LOG_WARN, __FILE__, __LINE__, __VA_ARGS__)
#define FC_LOG_ERROR(...) \
  fc_log_at(TRITONSERVER_LOG_ERROR, __FILE__, __LINE__, __VA_ARGS__)
#define FC_LOG_VERBOSE(...) \
  fc_log_at(TRITONSERVER_LOG_VERBOSE, __FILE__, __LINE__, __VA_ARGS__)
/* Log and delete an error returned by a user callback (may be NULL). */
void fc_log_and_drop(TRITONSERVER_Error* err, const char* what);

/* ------------------------------------------------------------------ */
/* parameter.c                                                         */
/* ------------------------------------------------------------------ */
struct TRITONSERVER_Parameter {
  char* name;
  TRITONSERVER_ParameterType type;
  char* str;          /* STRING */
  int64_t i64;        /* INT */
  bool b;             /* BOOL */
  double d;           /* DOUBLE */
  const void* bytes;  /* BYTES (not copied) */
  uint64_t byte_size;
  bool counted;       /* created through the public API */
};

typedef struct {
  TRITONSERVER_Parameter* items; /* internal, not counted */
  size_t n;
  size_t cap;
} fc_params;

void fc_params_add_string(fc_params* p, const char* name, const char* value);
void fc_params_add_int(fc_params* p, const char* name, int64_t value);
void fc_params_add_bool(fc_params* p, const char* name, bool value);
void fc_params_add_double(fc_params* p, const char* name, double value);
void fc_params_free(fc_params* p);
/* probe.c: the parameters and timeout of the last request handed to ServerInferAsync. */
void fc_probe_request(const fc_params* p, uint64_t timeout_us);
const void* fc_param_value_ptr(const TRITONSERVER_Parameter* p);

/* ------------------------------------------------------------------ */
/* tree: generic tree produced by the pbtxt and JSON readers           */
/* ------------------------------------------------------------------ */
typedef enum { FC_NODE_SCALAR, FC_NODE_MESSAGE } fc_node_kind;

typedef struct fc_node {
  char* key;          /* field name */
  fc_node_kind kind;
  char* text;         /* scalar text (strings unquoted/unescaped) */
  bool quoted;        /* scalar was a string literal */
  struct fc_node* child; /* first field of a message */
  struct fc_node* next;  /* next sibling */
} fc_node;

fc_node* fc_node_new(const char* key, size_t keylen, fc_node_kind kind);
void fc_node_append(fc_node* parent, fc_node* child);
void fc_node_free(fc_node* n); /* frees n, its children and its siblings */
/* First child with key (NULL if none). */
const fc_node* fc_node_find(const fc_node* msg, const char* key);

/* pbtxt.c: protobuf text format -> tree (root message). */
fc_node* fc_pbtxt_parse(const char* text, size_t len, char** err);
/* json.c: JSON object -> tree (arrays become repeated fields). */
fc_node* fc_json_parse(const char* text, size_t len, char** err);
/* json.c: JSON writer helpers */
void fc_json_str(fc_sb* sb, const char* s);

/* ------------------------------------------------------------------ */
/* config.c: model configuration                                       */
/* ------------------------------------------------------------------ */
typedef struct {
  char* name;
  TRITONSERVER_DataType dtype;
  int64_t* dims;
  size_t ndims;
  bool has_reshape;
  int64_t* reshape;
  size_t nreshape;
  bool optional;
  bool is_shape_tensor;
  bool allow_ragged_batch;
  char* label_filename; /* outputs */
} fc_io;

typedef struct {
  char* name;
  TRITONSERVER_InstanceGroupKind kind;
  int64_t count;
} fc_igroup;

typedef struct {
  char* key;
  char* value;
} fc_kv;

typedef enum { FC_VP_LATEST, FC_VP_ALL, FC_VP_SPECIFIC } fc_vp_kind;

typedef struct fc_config {
  char* name;
  char* platform;
  char* backend;
  char* runtime;
  char* default_model_filename;
  int64_t max_batch_size;
  fc_io* inputs;
  size_t ninputs;
  fc_io* outputs;
  size_t noutputs;
  bool has_txn_policy;
  bool decoupled;
  fc_igroup* groups;
  size_t ngroups;
  fc_kv* params;
  size_t nparams;
  bool has_dynamic_batching;
  int64_t max_queue_delay_us;
  bool preserve_ordering;
  int64_t priority_levels;
  int64_t default_priority_level;
  int64_t* preferred_batch_sizes;
  size_t npreferred;
  bool has_default_queue_policy;
  int64_t queue_timeout_action; /* 0 REJECT, 1 DELAY */
  int64_t queue_default_timeout_us;
  bool queue_allow_timeout_override;
  int64_t max_queue_size;       /* 0: unlimited */
  fc_vp_kind vp_kind;
  int64_t vp_latest;
  int64_t* vp_versions;
  size_t vp_nversions;
} fc_config;

/* Build a config from a parsed tree (pbtxt or JSON). NULL + *err on error. */
fc_config* fc_config_from_tree(const fc_node* root, char** err);
void fc_config_free(fc_config* c);
/* Fill defaults the way the real core normalizes a config. */
void fc_config_normalize(fc_config* c, const char* model_name);
/* Serialize as the JSON the real core returns (config_version 1). */
char* fc_config_to_json(const fc_config* c);
const fc_io* fc_config_input(const fc_config* c, const char* name);
const fc_io* fc_config_output(const fc_config* c, const char* name);
const char* fc_config_param(const fc_config* c, const char* key);
size_t fc_config_instance_count(const fc_config* c);

/* ------------------------------------------------------------------ */
/* options.c                                                           */
/* ------------------------------------------------------------------ */
typedef struct {
  char* a;
  char* b;
  char* c;
} fc_triple;

struct TRITONSERVER_ServerOptions {
  char* server_id;
  fc_strset repo_paths;
  TRITONSERVER_ModelControlMode control_mode;
  fc_strset startup_models;
  bool strict_model_config;
  char* model_config_name;
  TRITONSERVER_RateLimitMode rate_limit_mode;
  uint64_t pinned_memory_pool_size;
  double min_compute_capability;
  bool exit_on_error;
  bool strict_readiness;
  unsigned int exit_timeout;
  unsigned int buffer_manager_thread_count;
  unsigned int model_load_thread_count;
  /* Real core: TritonServerOptions's constructor leaves these two uninitialised; the fake fills
   * them with FC_OPTION_POISON_* until set, and TRITONSERVER_ServerNew aborts on a poisoned one. */
  unsigned int model_load_retry_count;
  bool model_namespacing;
  unsigned char peer_access; /* 0, 1, or FC_OPTION_POISON_BOOL */
  char* log_file;
  bool log_info, log_warn, log_error;
  int log_verbose;
  TRITONSERVER_LogFormat log_format;
  bool metrics, gpu_metrics, cpu_metrics;
  uint64_t metrics_interval_ms;
  char* backend_dir;
  char* repoagent_dir;
  char* cache_dir;
  fc_triple* settings; /* backend config, host policy, metrics config ... */
  size_t nsettings;
  size_t settings_cap;
};

/* ------------------------------------------------------------------ */
/* allocator.c / buffer_attributes.c / message.c                       */
/* ------------------------------------------------------------------ */
struct TRITONSERVER_ResponseAllocator {
  /* Set by TRITONSERVER_ResponseAllocatorDelete, which keeps the struct (see allocator.c). */
  bool deleted;
  TRITONSERVER_ResponseAllocatorAllocFn_t alloc_fn;
  TRITONSERVER_ResponseAllocatorReleaseFn_t release_fn;
  TRITONSERVER_ResponseAllocatorStartFn_t start_fn;
  TRITONSERVER_ResponseAllocatorQueryFn_t query_fn;
  TRITONSERVER_ResponseAllocatorBufferAttributesFn_t buffer_attributes_fn;
};

struct TRITONSERVER_BufferAttributes {
  int64_t memory_type_id;
  TRITONSERVER_MemoryType memory_type;
  void* cuda_ipc_handle;
  size_t byte_size;
};

struct TRITONSERVER_Message {
  char* json;
  size_t size;
};

/* Takes ownership of a malloc'd NUL-terminated JSON string. */
TRITONSERVER_Message* fc_message_take(char* json);

/* ------------------------------------------------------------------ */
/* metrics.c / metric_family.c: the process-wide metrics registry       */
/* ------------------------------------------------------------------ */
typedef struct {
  char* name;
  char* value;
} fc_label;

typedef struct fc_pfamily fc_pfamily; /* a registered family */
typedef struct fc_pmetric fc_pmetric; /* one label set of a family */
typedef struct fc_reporter fc_reporter; /* a model version's core metrics */

typedef enum {
  FC_FAIL_BACKEND,
  FC_FAIL_CANCELED,
  FC_FAIL_OTHER,
  FC_FAIL_REJECTED
} fc_fail_reason;

bool fc_metric_name_ok(const char* name);
bool fc_label_name_ok(const char* name);
/* Sets a label in a list kept sorted by name (a later value wins). */
void fc_labels_set(fc_label** labels, size_t* n, const char* name, const char* value);
void fc_labels_free(fc_label* labels, size_t n);
/* Registers a family, or finds the one of that name and kind. NULL and a
 * malloc'd *err (prometheus-cpp's wording) on failure. */
fc_pfamily* fc_registry_family(
    TRITONSERVER_MetricKind kind, const char* name, const char* help,
    char** err);
/* Finds (one more reference) or adds the metric with these labels; takes
 * over 'labels' in every case. Histograms need strictly sorted bounds. */
fc_pmetric* fc_registry_metric(
    fc_pfamily* f, fc_label* labels, size_t n, const double* bounds,
    size_t nbounds, char** err);
/* Drops a reference; the last one removes the metric from its family. */
void fc_registry_metric_drop(fc_pfamily* f, fc_pmetric* m);
void fc_pmetric_add(fc_pmetric* m, double v);
void fc_pmetric_set(fc_pmetric* m, double v);
void fc_pmetric_observe(fc_pmetric* m, double v);
double fc_pmetric_value(fc_pmetric* m);

/* Model metrics are collected once any server enabled metrics. */
void fc_metrics_enable(void);
/* The reporter of a model version, shared by everyone using that version;
 * NULL while metrics are off. Its metrics go when the last user releases. */
fc_reporter* fc_reporter_acquire(const char* model, int64_t version);
void fc_reporter_release(fc_reporter* r);
void fc_reporter_success(
    fc_reporter* r, uint64_t batch, uint64_t request_ns, uint64_t queue_ns,
    uint64_t input_ns, uint64_t infer_ns, uint64_t output_ns);
void fc_reporter_failure(fc_reporter* r, fc_fail_reason reason);
void fc_reporter_pending(fc_reporter* r, int delta);

/* ------------------------------------------------------------------ */
/* server / model records                                              */
/* ------------------------------------------------------------------ */
typedef enum {
  FC_MS_UNKNOWN,
  FC_MS_READY,
  FC_MS_UNAVAILABLE,
  FC_MS_LOADING,
  FC_MS_UNLOADING
} fc_model_state;

const char* fc_model_state_str(fc_model_state s);

typedef enum {
  FC_SS_INVALID,
  FC_SS_INITIALIZING,
  FC_SS_READY,
  FC_SS_EXITING,
  FC_SS_FAILED_TO_INITIALIZE
} fc_server_state;

struct fc_model;
struct fc_factory;
struct fc_server;

typedef struct fc_executor {
  const char* name;
  /* Validate a config at load time; returns NULL or an error. */
  TRITONSERVER_Error* (*validate)(const fc_config* cfg);
  /* Run one request on a worker thread. Must send the responses and
   * release the request with fc_request_release (the request must not be
   * touched afterwards). */
  void (*execute)(struct fc_model* m, TRITONSERVER_InferenceRequest* req);
} fc_executor;

/* models.c: picks the executor for a config (backend, or model name for
 * backend "python") and validates the config for it. */
const fc_executor* fc_executor_for(
    const fc_config* cfg, TRITONSERVER_Error** err);
/* models_python.c: the python models imitated by name (any other name
 * gets a stand-in answering empty responses). */
const fc_executor* fc_python_executor(const char* model_name);
/* models_llm.c / models_embed.c / models_tool.c: the models of the OpenAI front end's tests by
 * name (tiny_llm, tiny_trtllm, word_stream; tiny_embed; tool_llm), NULL for any other name. */
const fc_executor* fc_llm_executor(const char* model_name);
const fc_executor* fc_embed_executor(const char* model_name);
const fc_executor* fc_tool_executor(const char* model_name);

typedef struct fc_thread_node {
  pthread_t tid;
  bool done;
  struct fc_thread_node* next;
} fc_thread_node;

typedef struct {
  uint64_t count;
  uint64_t ns;
} fc_duration;

typedef struct {
  uint64_t batch_size;
  fc_duration input, infer, output;
} fc_batch_stat;

typedef struct {
  uint64_t last_inference_ms;
  uint64_t inference_count;
  uint64_t execution_count;
  fc_duration success, fail, queue, compute_input, compute_infer,
      compute_output;
  fc_batch_stat* batches;
  size_t nbatches;
} fc_stats;

/* labels.c: one output's label file, a line per class. */
typedef struct {
  char* output;
  char** lines;
  size_t n;
  size_t cap;
} fc_class_labels;

typedef struct fc_model {
  struct fc_server* server;
  char* name;
  int64_t version;
  char* path;          /* model directory */
  fc_config* cfg;      /* NULL when the config could not be read */
  const fc_executor* exec;
  /* guarded by server->mu */
  fc_model_state state;
  char* reason;
  bool retired;        /* superseded by a newer record of the same version */
  int64_t config_mtime_ns;
  uint64_t loaded_ns;  /* when its load finished (fc_now_ns), 0 before */

  /* scheduler, guarded by mu */
  pthread_mutex_t mu;
  pthread_cond_t queue_cv;  /* work available / shutdown */
  pthread_cond_t idle_cv;   /* inflight reached zero */
  pthread_cond_t sleep_cv;  /* wakes cancellable sleeps */
  TRITONSERVER_InferenceRequest* qhead;
  TRITONSERVER_InferenceRequest* qtail;
  size_t qlen;              /* requests waiting in the queue */
  size_t inflight;
  bool accepting;
  bool shutdown;
  bool teardown;            /* ServerDelete in progress: end sleeps */
  bool threads_running;
  bool joining;             /* a thread is inside fc_sched_join */
  pthread_t* workers;
  size_t nworkers;
  fc_thread_node* streams;
  fc_stats stats;
  fc_reporter* reporter;    /* while the instances exist (may be NULL) */
  struct fc_tmpdir* tmpdir; /* files of a load with 'file:' parameters */
  /* Responses not yet deleted (guarded by mu). As on the real core, where an
   * InferenceResponse holds a shared_ptr to its Model, a live response holds
   * the model: ServerStop waits for it, and a record still held when the
   * server is freed is left 'orphaned' for its last response to free. */
  size_t live_responses;
  bool orphaned;
  /* the label files of its outputs, read when it loads (labels.c) */
  fc_class_labels* class_labels;
  size_t nclass_labels;

  struct fc_model* next;   /* server's list of every record */
} fc_model;

typedef struct {
  char* model; /* the name the model loads under */
  char* repo;  /* the repository registered with the mapping */
  char* path;  /* <repo>/<subdirectory> */
} fc_mapping;

typedef struct fc_server {
  pthread_mutex_t mu;
  fc_server_state state;
  char* id;
  fc_strset repo_paths;
  TRITONSERVER_ModelControlMode mode;
  fc_strset startup_models;
  bool strict_model_config;
  bool strict_readiness;
  bool exit_on_error;
  char* model_config_name;
  unsigned int exit_timeout;
  fc_mapping* mappings;    /* from RegisterModelRepository, guarded by mu */
  size_t nmappings;
  fc_model* models;        /* every record ever created, newest first */
  fc_thread_node* unloaders;
  pthread_mutex_t load_mu; /* serializes load / unload / poll */
} fc_server;

/* repository.c */
typedef struct {
  char* name;
  char* path;   /* model directory */
  int dup;      /* found in more than one repository */
  bool mapped;  /* a subdirectory loaded under a mapped name */
  struct fc_tmpdir* tmpdir; /* files given as load parameters (borrowed) */
} fc_repo_entry;

typedef struct {
  fc_repo_entry* items;
  size_t n;
} fc_repo_list;

void fc_repo_scan(fc_server* s, fc_repo_list* out);
void fc_repo_list_free(fc_repo_list* l);
const fc_repo_entry* fc_repo_find(const fc_repo_list* l, const char* name);

/* Load (or reload) one model found at 'e' (s->load_mu held).
 * 'override_json' optionally replaces config.pbtxt. Sets *polled=false
 * when the model could not even be read (the core's poll failure).
 * Returns NULL or an error whose message is the core's load reason
 * ("version N is at UNAVAILABLE state: ...;"). */
TRITONSERVER_Error* fc_model_load(
    fc_server* s, const fc_repo_entry* e, const char* override_json,
    bool* polled);
/* Begin unloading every live version of 'name' (async). */
void fc_model_unload_async(fc_server* s, const char* name);
/* Drops what a record holds while its instances exist (its metrics
 * reporter and its temporary files); safe to call more than once. */
void fc_model_release_resources(fc_model* m);
/* Stop accepting, wait for in-flight work and join all threads. */
void fc_model_shutdown(fc_model* m);
void fc_model_free(fc_model* m);
/* A response of 'm' was created / deleted (see live_responses). */
void fc_model_response_new(fc_model* m);
void fc_model_response_gone(fc_model* m);
/* True while a response of 'm' is alive. */
bool fc_model_held(fc_model* m);
/* The server drops its record: freed now, or by its last response. */
void fc_model_drop(fc_model* m);

/* Lookups (server->mu must be held). */
fc_model* fc_model_find_locked(fc_server* s, const char* name, int64_t version);
bool fc_model_known_locked(fc_server* s, const char* name);
/* Resolve like the real GetModel, with its error wording. */
TRITONSERVER_Error* fc_server_get_model(
    fc_server* s, const char* name, int64_t version, fc_model** out);
void fc_server_join_unloaders(fc_server* s, bool all);
void fc_server_free_mappings(fc_server* s); /* server.c */

/* load_files.c: the temporary model directory of a load with files */
typedef struct fc_tmpdir fc_tmpdir;
bool fc_params_have_files(const TRITONSERVER_Parameter** params, uint64_t n);
/* Writes the 'file:' parameters into a new temporary directory, checking
 * 'config' as the core does. NULL and a malloc'd *msg on failure. */
fc_tmpdir* fc_tmpdir_from_params(
    const TRITONSERVER_Parameter** params, uint64_t n, char** msg);
const char* fc_tmpdir_path(const fc_tmpdir* d);
fc_tmpdir* fc_tmpdir_ref(fc_tmpdir* d);
void fc_tmpdir_unref(fc_tmpdir* d); /* the last one removes the directory */

/* scheduler.c */
void fc_sched_init(fc_model* m);    /* sync objects of a new record */
void fc_sched_destroy(fc_model* m); /* after fc_sched_join */
void fc_sched_start(fc_model* m);
/* Enqueue; returns an error (caller keeps the request) when stopped. */
TRITONSERVER_Error* fc_sched_enqueue(
    fc_model* m, TRITONSERVER_InferenceRequest* req);
void fc_sched_stop_accepting(fc_model* m);
/* Wait for inflight==0 until deadline_ns (fc_now_ns clock; UINT64_MAX
 * waits forever). Returns true when idle. */
bool fc_sched_wait_idle(fc_model* m, uint64_t deadline_ns);
void fc_sched_join(fc_model* m);
void fc_sched_inflight_dec(fc_model* m);
/* Start a stream thread owned by the model (repeat); it counts
 * as in-flight work until fn returns. */
void fc_sched_spawn_stream(fc_model* m, void (*fn)(void*), void* arg);
/* Sleep up to ms; returns early when 'f' is cancelled or at teardown.
 * Returns true if it was cut short. */
bool fc_sched_sleep(fc_model* m, struct fc_factory* f, uint64_t ms);
/* True when a stream should end early: cancelled, or server teardown. */
bool fc_sched_stream_stop(fc_model* m, struct fc_factory* f);
void fc_stats_record(
    fc_model* m, bool success, uint64_t queue_ns, uint64_t compute_ns,
    uint64_t batch, fc_fail_reason reason);

/* ------------------------------------------------------------------ */
/* request.c / validate.c / infer.c                                    */
/* ------------------------------------------------------------------ */
typedef struct {
  const void* base;
  size_t size;
  TRITONSERVER_MemoryType memory_type;
  int64_t memory_type_id;
} fc_buf;

typedef struct {
  fc_buf* items;
  size_t n;
  size_t cap;
} fc_bufs;

typedef struct fc_input {
  char* name;          /* the name the caller used */
  TRITONSERVER_DataType dtype;
  int64_t* shape;      /* as given by the caller */
  size_t ndims;
  int64_t* exec_shape; /* normalized (reshape applied, batch dim kept) */
  size_t nexec;
  fc_bufs data;
  struct fc_input* next;
} fc_input;

typedef enum {
  FC_RS_INITIALIZED,
  FC_RS_PENDING,
  FC_RS_EXECUTING,
  FC_RS_RELEASED,
  FC_RS_FAILED_ENQUEUE
} fc_request_state;

/* Shared by a request and every response / stream it produces. */
typedef struct fc_factory {
  atomic_int refs;
  atomic_bool cancelled;
  fc_model* model;
  char* id;
  TRITONSERVER_ResponseAllocator* allocator;
  void* alloc_userp;
  TRITONSERVER_InferenceResponseCompleteFn_t response_fn;
  void* response_userp;
  /* the request's trace while the request holds it (trace.c's lock) */
  struct TRITONSERVER_InferenceTrace* trace;
} fc_factory;

fc_factory* fc_factory_ref(fc_factory* f);
void fc_factory_unref(fc_factory* f);
void fc_factory_send_flags(fc_factory* f, uint32_t flags);

struct TRITONSERVER_InferenceRequest {
  fc_server* server;
  fc_model* model;
  int64_t requested_version;
  char* id;
  uint32_t flags;
  bool corr_is_string;
  uint64_t corr_u64;
  char* corr_str;
  uint64_t priority;
  uint64_t timeout_us;
  fc_input* inputs; /* insertion order */
  fc_strset requested;
  fc_params params;
  TRITONSERVER_InferenceRequestReleaseFn_t release_fn;
  void* release_userp;
  TRITONSERVER_ResponseAllocator* allocator;
  void* alloc_userp;
  TRITONSERVER_InferenceResponseCompleteFn_t response_fn;
  void* response_userp;
  fc_factory* factory;
  atomic_int state; /* fc_request_state */
  /* filled by validation for the executors */
  uint64_t batch_size;
  fc_strset exec_outputs;
  uint64_t queue_start_ns;
  uint64_t exec_start_ns;
  bool executed;            /* reached the model's execute */
  fc_fail_reason fail_reason; /* for a release with success == false */
  TRITONSERVER_InferenceTrace* trace; /* attached by ServerInferAsync */
  struct TRITONSERVER_InferenceRequest* qnext;
};

char* fc_request_log_prefix(const TRITONSERVER_InferenceRequest* r);
fc_input* fc_request_find_input(
    const TRITONSERVER_InferenceRequest* r, const char* name);
/* Input by the name the model sees (NULL if absent). */

size_t fc_input_total_bytes(const fc_input* in);
/* Copy an input's buffers into host memory dst (total bytes); GPU buffers
 * are copied with fc_gpu_copy. */
TRITONSERVER_Error* fc_input_gather(const fc_input* in, void* dst);

/* gpu.c: copy with the process's cudaMemcpy (cudaMemcpyDefault). */
TRITONSERVER_Error* fc_gpu_copy(void* dst, const void* src, size_t n);
const char* fc_request_state_str(fc_request_state s);

/* validate.c: normalize + validate as the real core's Normalize(). */
TRITONSERVER_Error* fc_request_normalize(TRITONSERVER_InferenceRequest* r);

/* trace.c */
void fc_trace_report(
    TRITONSERVER_InferenceTrace* t, TRITONSERVER_InferenceTraceActivity activity,
    uint64_t ns);
void fc_trace_tensor(
    TRITONSERVER_InferenceTrace* t, TRITONSERVER_InferenceTraceActivity activity,
    const char* name, TRITONSERVER_DataType dtype, const void* base,
    size_t byte_size, const int64_t* shape, uint64_t dim_count,
    TRITONSERVER_MemoryType memory_type, int64_t memory_type_id);
bool fc_trace_wants_tensors(const TRITONSERVER_InferenceTrace* t);
/* Names the trace's model, version and request id and attaches it to the
 * request (one reference) and its response factory. */
void fc_trace_attach(
    TRITONSERVER_InferenceTrace* t, fc_factory* f, const char* model,
    int64_t version, const char* request_id);
/* One more reference for a response made by 'f' (NULL when untraced). */
TRITONSERVER_InferenceTrace* fc_trace_ref_from(fc_factory* f);
/* Drops a reference (and, given the factory, stops tracing its later
 * responses); the last one calls the release callback. */
void fc_trace_detach(TRITONSERVER_InferenceTrace* t, fc_factory* f);

/* infer.c: record the execution statistics ('success' as the backend
 * reports it), then hand the request back through its release callback. */
void fc_request_release(TRITONSERVER_InferenceRequest* r, bool success);

/* ------------------------------------------------------------------ */
/* word_echo.c: what the word echo models share (models_llm.c, models_embed.c) */
/* ------------------------------------------------------------------ */
/* Byte strings, each with its length (they may hold NUL bytes). */
typedef struct {
  char** items; /* each malloc'd, NUL-terminated after its length */
  size_t* lens;
  size_t n;
  size_t cap;
} fc_texts;

void fc_texts_push(fc_texts* t, const char* s, size_t len);
void fc_texts_free(fc_texts* t);
bool fc_texts_has(const fc_texts* t, const char* s, size_t len);
/* Appends the words of s: runs of ASCII whitespace separate them, as Python's bytes.split(). */
void fc_split_words(const char* s, size_t len, fc_texts* out);
/* Appends the elements of a BYTES input (copied to host memory). */
TRITONSERVER_Error* fc_input_texts(const fc_input* in, fc_texts* out);
/* Adds a BYTES output holding t's elements, of the given shape. */
TRITONSERVER_Error* fc_output_texts(
    TRITONSERVER_InferenceResponse* resp, const char* name, const int64_t* shape, size_t ndims,
    const fc_texts* t);
/* Copies the first element of a fixed-size input to dst (elem bytes); false when it has none. */
bool fc_input_first(const fc_input* in, void* dst, size_t elem);

/* A request's settings as the Python models read them: a JSON object (json.loads of an input) or
 * the request's parameters (request.parameters()). */
typedef struct {
  fc_node* json;           /* owned; NULL for the request's parameters */
  const fc_params* params; /* borrowed */
} fc_settings;

/* Reads text as a JSON object; false where Python's json.loads would fail or give no object. A
 * JSON array and a key given twice both read as a list (the tree's repeated fields). */
bool fc_settings_from_json(fc_settings* s, const char* text, size_t len);
void fc_settings_from_params(fc_settings* s, const fc_params* p);
void fc_settings_free(fc_settings* s);
/* `key` as an integer >= least (an integral number or a string of digits), `def` when absent;
 * else INVALID_ARG "<model>: <key> must be an integer" / "... must be at least <least>". */
TRITONSERVER_Error* fc_settings_int(
    const fc_settings* s, const char* model, const char* key, int64_t def, int64_t least,
    int64_t* out);
/* Appends `key`, a string (or, with allow_list, a list of strings) to out; nothing when absent;
 * else INVALID_ARG "<model>: <key> must be a string[ or a list of strings]". */
TRITONSERVER_Error* fc_settings_strings(
    const fc_settings* s, const char* model, const char* key, bool allow_list, fc_texts* out);

/* ------------------------------------------------------------------ */
/* labels.c                                                            */
/* ------------------------------------------------------------------ */
/* Reads the label file of each output that names one (`label_filename`), as the real core does
 * when a model loads. */
TRITONSERVER_Error* fc_class_labels_load(fc_model* m);
void fc_class_labels_free(fc_model* m);
/* Real core: the label of class `class_index` of `output`; NULL where the output has no label
 * file, the file has no such line, or the line is empty. */
const char* fc_class_label(const fc_model* m, const char* output, uint32_t class_index);

/* ------------------------------------------------------------------ */
/* response.c                                                          */
/* ------------------------------------------------------------------ */
typedef struct {
  char* name;
  TRITONSERVER_DataType dtype;
  int64_t* shape;
  size_t ndims;
  void* buffer;
  void* buffer_userp;
  void* staging; /* host copy written by the model for a GPU buffer */
  size_t byte_size;
  TRITONSERVER_MemoryType memory_type;
  int64_t memory_type_id;
} fc_output;

struct TRITONSERVER_InferenceResponse {
  fc_factory* factory;
  TRITONSERVER_InferenceTrace* trace; /* held until the response is deleted */
  TRITONSERVER_Error* error;
  fc_output* outputs;
  size_t noutputs;
  size_t cap;
  fc_params params;
};

/* Create a response (invokes the allocator's start_fn). */
TRITONSERVER_InferenceResponse* fc_response_new(fc_factory* f);
/* Add an output and allocate its buffer through the user's allocator.
 * The output stays in the response even when allocation fails. */
TRITONSERVER_Error* fc_response_output(
    TRITONSERVER_InferenceResponse* r, const char* name,
    TRITONSERVER_DataType dtype, const int64_t* shape, size_t ndims,
    size_t byte_size, void** buffer);
/* Send; takes ownership of 'err' (may be NULL). */
void fc_response_send(
    TRITONSERVER_InferenceResponse* r, uint32_t flags, TRITONSERVER_Error* err);
/* Internal deletion (releases buffers on the current thread). */
void fc_response_destroy(TRITONSERVER_InferenceResponse* r);
/* Error response + FINAL from a factory, like the core's RespondIfError. */
void fc_respond_error(fc_factory* f, TRITONSERVER_Error* err);

#pragma GCC visibility pop

#endif /* FAKE_CORE_H */
