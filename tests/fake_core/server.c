/* server.c - server lifecycle: ServerNew / Stop / Delete, readiness, and
 * explicit model control (load / unload / poll / repositories). Real core:
 * InferenceServer (Init, Stop, IsLive, IsReady, ModelIsReady) and
 * ModelRepositoryManager (LoadUnloadModel, PollAndUpdate,
 * RegisterModelRepository, UnregisterModelRepository), named at each
 * behaviour. */
#include "fake_core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define SERVER_CHECK(s)                                                 \
  do {                                                                  \
    if ((s) == NULL) {                                                  \
      return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "server is null");  \
    }                                                                   \
    fc_handle_check(FC_K_SERVER, (s), __func__);                        \
  } while (0)

static fc_server_state
get_state(fc_server* s)
{
  pthread_mutex_lock(&s->mu);
  fc_server_state st = s->state;
  pthread_mutex_unlock(&s->mu);
  return st;
}

static void
set_state(fc_server* s, fc_server_state st)
{
  pthread_mutex_lock(&s->mu);
  s->state = st;
  pthread_mutex_unlock(&s->mu);
}

static TRITONSERVER_Error*
check_repositories(fc_server* s)
{
  if (s->repo_paths.n == 0) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG, "--model-repository must be specified");
  }
  for (size_t i = 0; i < s->repo_paths.n; ++i) {
    struct stat st;
    if (stat(s->repo_paths.items[i], &st) != 0) {
      return fc_err(
          TRITONSERVER_ERROR_INTERNAL, "failed to stat file %s",
          s->repo_paths.items[i]);
    }
    if (!S_ISDIR(st.st_mode)) {
      return fc_err(
          TRITONSERVER_ERROR_INVALID_ARG,
          "repository path is not a valid directory");
    }
  }
  return NULL;
}

/* True when every loaded model name has all its versions READY. */
static bool
all_models_ready(fc_server* s)
{
  bool ok = true;
  pthread_mutex_lock(&s->mu);
  for (fc_model* m = s->models; m; m = m->next) {
    if (!m->retired && m->state != FC_MS_READY) {
      ok = false;
    }
  }
  pthread_mutex_unlock(&s->mu);
  return ok;
}

/* Initial loads per control mode, as ModelRepositoryManager::Create. */
static TRITONSERVER_Error*
load_startup_models(fc_server* s)
{
  bool wildcard = fc_strset_has(&s->startup_models, "*");
  bool explicit_mode = (s->mode == TRITONSERVER_MODEL_CONTROL_EXPLICIT);
  if (explicit_mode && wildcard && s->startup_models.n > 1) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG,
        "Wildcard model name '*' must be the ONLY startup model if specified "
        "at all.");
  }
  fc_repo_list repo;
  fc_repo_scan(s, &repo);
  bool all_polled = true;
  TRITONSERVER_Error* result = NULL;

  if (!explicit_mode || wildcard) {
    for (size_t i = 0; i < repo.n; ++i) {
      bool polled = true;
      TRITONSERVER_Error* err = fc_model_load(s, &repo.items[i], NULL, &polled);
      all_polled = all_polled && polled;
      fc_err_free(err); /* logged; the summary below decides */
    }
  } else {
    fc_sb msg;
    fc_sb_init(&msg);
    for (size_t i = 0; i < s->startup_models.n; ++i) {
      const char* name = s->startup_models.items[i];
      const fc_repo_entry* e = fc_repo_find(&repo, name);
      if (e == NULL) {
        FC_LOG_ERROR(
            "failed to poll model '%s': model not found in any model "
            "repository.",
            name);
        all_polled = false;
        continue;
      }
      bool polled = true;
      TRITONSERVER_Error* err = fc_model_load(s, e, NULL, &polled);
      all_polled = all_polled && polled;
      if (err != NULL && polled) {
        fc_sb_printf(&msg, "load failed for model '%s': %s\n", name, err->msg);
      }
      fc_err_free(err);
    }
    if (msg.len > 0) {
      result = fc_err(TRITONSERVER_ERROR_INVALID_ARG, "%s", msg.data);
    }
    fc_sb_free(&msg);
  }
  fc_repo_list_free(&repo);
  if (result == NULL && (!all_polled || !all_models_ready(s))) {
    result = fc_err(TRITONSERVER_ERROR_INTERNAL, "failed to load all models");
  }
  return result;
}

/* Marks the server's models unloaded, but for those a live response still
 * holds, which stay UNLOADING (s->mu held). Returns how many are held. */
static size_t
settle_models_locked(fc_server* s)
{
  size_t held = 0;
  for (fc_model* m = s->models; m; m = m->next) {
    if (m->state != FC_MS_READY && m->state != FC_MS_UNLOADING &&
        m->state != FC_MS_LOADING) {
      continue;
    }
    if (fc_model_held(m)) {
      held++;
      if (m->state != FC_MS_UNLOADING) {
        m->state = FC_MS_UNLOADING;
        free(m->reason);
        m->reason = fc_strdup("");
      }
    } else {
      m->state = FC_MS_UNAVAILABLE;
      free(m->reason);
      m->reason = fc_strdup("unloaded");
    }
  }
  return held;
}

/* Real core: a load returns once each instance's backend thread has run its
 * initialization and warm-up, and that thread is still returning from the
 * call for a moment after (its list of instances empty until it does). An
 * unload or a stop then tears the instances down on another thread
 * (TritonBackendThread::StopBackendThread), which reads that list
 * unsynchronized: the process crashes when the backend thread was
 * descheduled there (measured on a loaded machine: unloading the identity
 * models, two instances each, right after their load crashed 9 processes in
 * 10 within a few hundred loads). The fake stops the process when a model
 * is unloaded, or the server stopped or deleted, within FC_LOAD_SETTLE_MS of
 * its load, naming the model, so that a binding that does not wait after a
 * load (the binding waits 100 ms) fails in CI. */
#define FC_LOAD_SETTLE_MS 50

/* `name` NULL: every model (a stop). */
static void
abort_if_just_loaded(fc_server* s, const char* name, const char* call)
{
  uint64_t now = fc_now_ns();
  pthread_mutex_lock(&s->mu);
  for (fc_model* m = s->models; m; m = m->next) {
    if (m->retired || m->state != FC_MS_READY || m->loaded_ns == 0 ||
        (name != NULL && strcmp(m->name, name) != 0)) {
      continue;
    }
    uint64_t since = now - m->loaded_ns;
    if (since < FC_LOAD_SETTLE_MS * 1000000ull) {
      fprintf(
          stderr,
          "fake core: %s %.1f ms after model '%s' finished loading: the real "
          "core tears its instances down while their backend threads may still "
          "be returning from their warm-up, and can crash (wait after a load)\n",
          call, (double)since / 1e6, m->name);
      abort();
    }
  }
  pthread_mutex_unlock(&s->mu);
}

/* After a Stop that failed its exit timeout, a later Stop succeeds at once
 * (the server is no longer READY) and the real core's ServerDelete then frees
 * the server under the work still running on its threads: an inference still
 * executing, or a model still unloading (one a response held until the
 * failed Stop gave up: deleting that response starts its unload on a thread
 * of the core). The process crashes (seen with a Python model still
 * executing and unloading, and as glibc's "double free or corruption" with
 * identity_int32 unloading). The fake stops the process there too, saying
 * why, so that a binding that deletes too early fails in CI as it would in
 * production. */
static void
abort_if_busy(fc_server* s)
{
  size_t inflight = 0;
  const char* live = NULL;
  pthread_mutex_lock(&s->mu);
  for (fc_model* m = s->models; m; m = m->next) {
    pthread_mutex_lock(&m->mu);
    inflight += m->inflight;
    bool unloading = m->live_responses > 0 || m->state == FC_MS_READY ||
                     m->state == FC_MS_LOADING || m->state == FC_MS_UNLOADING;
    pthread_mutex_unlock(&m->mu);
    if (unloading && live == NULL) {
      live = m->name;
    }
  }
  pthread_mutex_unlock(&s->mu);
  if (inflight > 0) {
    fprintf(
        stderr,
        "fake core: TRITONSERVER_ServerDelete with %zu inferences still running: "
        "the real core frees what they use and crashes\n",
        inflight);
    abort();
  }
  if (live != NULL) {
    fprintf(
        stderr,
        "fake core: TRITONSERVER_ServerDelete after a failed TRITONSERVER_ServerStop, with "
        "model '%s' still live or unloading: the real core frees what its unload uses and "
        "crashes\n",
        live);
    abort();
  }
}

static TRITONSERVER_Error*
exit_timeout_error(void)
{
  return fc_err(
      TRITONSERVER_ERROR_INTERNAL, "Exit timeout expired. Exiting immediately.");
}

/* As the real core's InferenceServer::Stop: wait for in-flight inferences,
 * unload every model, then wait until no model is live any more, all within
 * one exit timeout. A model stays live while a response of it is not
 * deleted (the response holds the model), so an undisposed response makes
 * Stop wait the whole timeout, logging "Found N live models" each second,
 * and then fail with INTERNAL "Exit timeout expired. Exiting immediately."
 * with the model still alive. The real core checks once a second; the fake
 * checks every 100 ms. A later Stop returns success at once (the server is
 * no longer READY), so ServerDelete after a failed Stop deletes it. */
static TRITONSERVER_Error*
server_stop(fc_server* s)
{
  pthread_mutex_lock(&s->load_mu);
  pthread_mutex_lock(&s->mu);
  if (s->state != FC_SS_READY) {
    pthread_mutex_unlock(&s->mu);
    pthread_mutex_unlock(&s->load_mu);
    return NULL;
  }
  s->state = FC_SS_EXITING;
  unsigned int timeout = s->exit_timeout;
  for (fc_model* m = s->models; m; m = m->next) {
    fc_sched_stop_accepting(m);
  }
  pthread_mutex_unlock(&s->mu);
  FC_LOG_INFO("Waiting for in-flight requests to complete.");

  uint64_t deadline = fc_now_ns() + (uint64_t)timeout * 1000000000ull;
  bool idle = true;
  for (fc_model* m = s->models; m; m = m->next) {
    idle = fc_sched_wait_idle(m, deadline) && idle;
  }
  if (!idle) {
    pthread_mutex_unlock(&s->load_mu);
    return exit_timeout_error();
  }
  FC_LOG_INFO("All models are stopped, unloading models");
  for (fc_model* m = s->models; m; m = m->next) {
    fc_sched_join(m);
  }
  fc_server_join_unloaders(s, true);

  uint64_t next_log = 0;
  for (;;) {
    pthread_mutex_lock(&s->mu);
    size_t live = settle_models_locked(s);
    pthread_mutex_unlock(&s->mu);
    uint64_t now = fc_now_ns();
    if (live > 0 && now >= next_log) {
      uint64_t left = now < deadline ? (deadline - now) / 1000000000ull : 0;
      FC_LOG_INFO(
          "Timeout %llu: Found %zu live models and 0 in-flight non-inference "
          "requests",
          (unsigned long long)left, live);
      next_log = now + 1000000000ull;
    }
    if (live == 0) {
      break;
    }
    if (now >= deadline) {
      pthread_mutex_unlock(&s->load_mu);
      return exit_timeout_error();
    }
    fc_sleep_ns(deadline - now < 100000000ull ? deadline - now : 100000000ull);
  }
  pthread_mutex_unlock(&s->load_mu);
  return NULL;
}

/* Final teardown: cut sleeps short, drain, join every thread, free. */
static void
server_free(fc_server* s)
{
  for (fc_model* m = s->models; m; m = m->next) {
    pthread_mutex_lock(&m->mu);
    m->teardown = true;
    m->accepting = false;
    pthread_cond_broadcast(&m->sleep_cv);
    pthread_mutex_unlock(&m->mu);
  }
  for (fc_model* m = s->models; m; m = m->next) {
    fc_model_shutdown(m);
  }
  fc_server_join_unloaders(s, true);
  fc_model* m = s->models;
  while (m) {
    fc_model* next = m->next;
    fc_model_drop(m); /* a record a live response holds outlives the server */
    m = next;
  }
  fc_strset_clear(&s->repo_paths);
  fc_strset_clear(&s->startup_models);
  fc_server_free_mappings(s);
  free(s->id);
  free(s->model_config_name);
  pthread_mutex_destroy(&s->mu);
  pthread_mutex_destroy(&s->load_mu);
  free(s);
  fc_count_dec(FC_K_SERVER);
}

/* Real core: TritonServerOptions's constructor gives the model load retry count and peer access
 * no value, so a server created without setting them reads what the heap held (seen: a model that
 * fails to load retried without end, its log growing by gigabytes). tritonserver's command line
 * always sets both; a binding must too. The fake stops the process, naming the option. */
static void
abort_if_uninitialised(const TRITONSERVER_ServerOptions* o)
{
  const char* unset = o->model_load_retry_count == FC_OPTION_POISON_U32
                          ? "TRITONSERVER_ServerOptionsSetModelLoadRetryCount"
                      : o->peer_access == FC_OPTION_POISON_BOOL
                          ? "TRITONSERVER_ServerOptionsSetEnablePeerAccess"
                          : NULL;
  if (unset != NULL) {
    fprintf(
        stderr,
        "fake core: TRITONSERVER_ServerNew with options %s never set: the real core leaves it "
        "uninitialised and reads whatever the heap held\n",
        unset);
    abort();
  }
}

TRITONSERVER_Error*
TRITONSERVER_ServerNew(
    TRITONSERVER_Server** server, TRITONSERVER_ServerOptions* o)
{
  if (server == NULL || o == NULL) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "invalid argument");
  }
  abort_if_uninitialised(o);
  fc_server* s = fc_xcalloc(1, sizeof(*s));
  pthread_mutex_init(&s->mu, NULL);
  pthread_mutex_init(&s->load_mu, NULL);
  s->state = FC_SS_INITIALIZING;
  s->id = fc_strdup(o->server_id);
  fc_strset_copy(&s->repo_paths, &o->repo_paths);
  fc_strset_copy(&s->startup_models, &o->startup_models);
  s->mode = o->control_mode;
  s->strict_model_config = o->strict_model_config;
  s->strict_readiness = o->strict_readiness;
  s->exit_on_error = o->exit_on_error;
  s->model_config_name = fc_strdup(o->model_config_name);
  s->exit_timeout = o->exit_timeout;
  if (o->metrics) {
    fc_metrics_enable(); /* before any model is loaded */
  }
  fc_count_inc(FC_K_SERVER);

  TRITONSERVER_Error* err = check_repositories(s);
  if (err != NULL) {
    set_state(s, FC_SS_FAILED_TO_INITIALIZE);
  } else {
    pthread_mutex_lock(&s->load_mu);
    err = load_startup_models(s);
    pthread_mutex_unlock(&s->load_mu);
    set_state(s, FC_SS_READY); /* models may have failed; still serving */
  }

  if (err != NULL) {
    if (s->exit_on_error) {
      fc_err_free(server_stop(s));
      server_free(s);
      return err;
    }
    char* text = fc_err_as_string(err);
    FC_LOG_ERROR("%s", text);
    free(text);
    fc_err_free(err);
  }
  fc_handle_add(FC_K_SERVER, s);
  *server = (TRITONSERVER_Server*)s;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerStop(TRITONSERVER_Server* server)
{
  if (server == NULL) {
    return NULL;
  }
  fc_handle_check(FC_K_SERVER, server, __func__);
  if (fc_core_thread) {
    return fc_err(
        TRITONSERVER_ERROR_INTERNAL,
        "fake core: TRITONSERVER_ServerStop called from a callback on a core "
        "thread would wait for itself");
  }
  abort_if_just_loaded((fc_server*)server, NULL, "TRITONSERVER_ServerStop");
  return server_stop((fc_server*)server);
}

TRITONSERVER_Error*
TRITONSERVER_ServerDelete(TRITONSERVER_Server* server)
{
  if (server == NULL) {
    return NULL;
  }
  fc_handle_check(FC_K_SERVER, server, __func__);
  if (fc_core_thread) {
    return fc_err(
        TRITONSERVER_ERROR_INTERNAL,
        "fake core: TRITONSERVER_ServerDelete called from a callback on a "
        "core thread would join itself");
  }
  fc_server* s = (fc_server*)server;
  abort_if_just_loaded(s, NULL, "TRITONSERVER_ServerDelete");
  TRITONSERVER_Error* err = server_stop(s);
  if (err != NULL) {
    return err; /* as the real core: the server is not deleted */
  }
  abort_if_busy(s);
  fc_handle_remove(FC_K_SERVER, s, __func__);
  server_free(s);
  return NULL;
}
/* Real core (InferenceServer::IsLive): UNAVAILABLE "Server exiting" once
 * stopping; live once initialized. */
TRITONSERVER_Error*
TRITONSERVER_ServerIsLive(TRITONSERVER_Server* server, bool* live)
{
  SERVER_CHECK(server);
  fc_server_state st = get_state((fc_server*)server);
  *live = false;
  if (st == FC_SS_EXITING) {
    return fc_err(TRITONSERVER_ERROR_UNAVAILABLE, "Server exiting");
  }
  *live = (st != FC_SS_INVALID && st != FC_SS_INITIALIZING &&
           st != FC_SS_FAILED_TO_INITIALIZE);
  return NULL;
}

/* Real core (InferenceServer::IsReady): ready while READY; with strict
 * readiness, only while every model that is not merely unloaded is READY. */
TRITONSERVER_Error*
TRITONSERVER_ServerIsReady(TRITONSERVER_Server* server, bool* ready)
{
  SERVER_CHECK(server);
  fc_server* s = (fc_server*)server;
  *ready = false;
  pthread_mutex_lock(&s->mu);
  fc_server_state st = s->state;
  if (st == FC_SS_EXITING) {
    pthread_mutex_unlock(&s->mu);
    return fc_err(TRITONSERVER_ERROR_UNAVAILABLE, "Server exiting");
  }
  bool r = (st == FC_SS_READY);
  if (r && s->strict_readiness) {
    for (fc_model* m = s->models; m; m = m->next) {
      if (!m->retired && m->state != FC_MS_READY &&
          strcmp(m->reason, "unloaded") != 0) {
        r = false;
      }
    }
  }
  pthread_mutex_unlock(&s->mu);
  *ready = r;
  return NULL;
}

/* As the real core's InferenceServer::ModelIsReady: UNAVAILABLE "Server not
 * ready" unless the server is READY; otherwise success, with *ready false
 * when the model cannot be found at READY (unknown, unloaded, unloading or
 * failed to load) rather than the lookup's error. */
TRITONSERVER_Error*
TRITONSERVER_ServerModelIsReady(
    TRITONSERVER_Server* server, const char* model_name,
    const int64_t model_version, bool* ready)
{
  SERVER_CHECK(server);
  fc_server* s = (fc_server*)server;
  *ready = false;
  if (get_state(s) != FC_SS_READY) {
    return fc_err(TRITONSERVER_ERROR_UNAVAILABLE, "Server not ready");
  }
  fc_model* m = NULL;
  TRITONSERVER_Error* err = fc_server_get_model(s, model_name, model_version, &m);
  if (err != NULL) {
    fc_err_free(err);
    return NULL;
  }
  pthread_mutex_lock(&s->mu);
  *ready = (m->state == FC_MS_READY);
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerModelBatchProperties(
    TRITONSERVER_Server* server, const char* model_name,
    const int64_t model_version, uint32_t* flags, void** voidp)
{
  SERVER_CHECK(server);
  if (voidp != NULL) {
    *voidp = NULL;
  }
  fc_model* m = NULL;
  TRITONSERVER_Error* err =
      fc_server_get_model((fc_server*)server, model_name, model_version, &m);
  if (err) {
    return err;
  }
  *flags = m->cfg->max_batch_size > 0 ? TRITONSERVER_BATCH_FIRST_DIM
                                      : TRITONSERVER_BATCH_UNKNOWN;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerModelTransactionProperties(
    TRITONSERVER_Server* server, const char* model_name,
    const int64_t model_version, uint32_t* txn_flags, void** voidp)
{
  SERVER_CHECK(server);
  if (voidp != NULL) {
    *voidp = NULL;
  }
  *txn_flags = 0;
  fc_model* m = NULL;
  TRITONSERVER_Error* err =
      fc_server_get_model((fc_server*)server, model_name, model_version, &m);
  if (err) {
    return err;
  }
  *txn_flags = m->cfg->decoupled ? TRITONSERVER_TXN_DECOUPLED
                                 : TRITONSERVER_TXN_ONE_TO_ONE;
  return NULL;
}

/* ---- explicit model control ---- */
/* Real core (ModelRepositoryManager::LoadUnloadModel): load and unload need
 * a READY server in EXPLICIT mode, with these errors. */
static TRITONSERVER_Error*
control_check(fc_server* s)
{
  if (get_state(s) != FC_SS_READY) {
    return fc_err(TRITONSERVER_ERROR_UNAVAILABLE, "Server not ready");
  }
  if (s->mode != TRITONSERVER_MODEL_CONTROL_EXPLICIT) {
    return fc_err(
        TRITONSERVER_ERROR_UNAVAILABLE,
        "explicit model load / unload is not allowed if polling is enabled");
  }
  return NULL;
}

static TRITONSERVER_Error*
poll_failure(const char* name)
{
  return fc_err(
      TRITONSERVER_ERROR_INTERNAL,
      "failed to load '%s', failed to poll from model repository", name);
}

TRITONSERVER_Error*
TRITONSERVER_ServerLoadModelWithParameters(
    TRITONSERVER_Server* server, const char* model_name,
    const TRITONSERVER_Parameter** parameters, const uint64_t parameter_count)
{
  if (parameters == NULL && parameter_count != 0) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG,
        "load parameters are not provided while parameter count is non-zero");
  }
  SERVER_CHECK(server);
  fc_server* s = (fc_server*)server;
  TRITONSERVER_Error* err = control_check(s);
  if (err) {
    return err;
  }
  /* Files given as parameters: the model loads from a temporary directory
   * holding them, whatever the repositories contain. */
  fc_tmpdir* files = NULL;
  if (fc_params_have_files(parameters, parameter_count)) {
    char* msg = NULL;
    files = fc_tmpdir_from_params(parameters, parameter_count, &msg);
    if (files == NULL) {
      FC_LOG_ERROR("Poll failed for model directory '%s': %s", model_name, msg);
      free(msg);
      return poll_failure(model_name);
    }
  }
  const char* override_json = NULL;
  for (uint64_t i = 0; i < parameter_count; ++i) {
    const TRITONSERVER_Parameter* p = parameters[i];
    if (strcmp(p->name, "config") == 0 && p->type == TRITONSERVER_PARAMETER_STRING) {
      override_json = p->str;
      break;
    }
    if (strncmp(p->name, "file:", 5) == 0) {
      continue;
    }
    /* The core rejects this while polling the model. */
    FC_LOG_ERROR(
        "Poll failed for model directory '%s': Unrecognized load parameter "
        "'%s' with type '%s'",
        model_name, p->name, TRITONSERVER_ParameterTypeString(p->type));
    fc_tmpdir_unref(files);
    return poll_failure(model_name);
  }

  pthread_mutex_lock(&s->load_mu);
  fc_server_join_unloaders(s, false);
  fc_repo_list repo = {0};
  fc_repo_entry local = {0};
  const fc_repo_entry* e = NULL;
  if (files != NULL) {
    local.name = (char*)model_name;
    local.path = (char*)fc_tmpdir_path(files);
    local.tmpdir = files;
    e = &local;
  } else {
    fc_repo_scan(s, &repo);
    e = fc_repo_find(&repo, model_name);
  }
  if (e == NULL) {
    FC_LOG_ERROR(
        "failed to poll model '%s': model not found in any model repository.",
        model_name);
    err = poll_failure(model_name);
  } else {
    bool polled = true;
    TRITONSERVER_Error* lerr = fc_model_load(s, e, override_json, &polled);
    if (!polled) {
      err = poll_failure(model_name);
    } else if (lerr != NULL) {
      err = fc_err(
          TRITONSERVER_ERROR_INVALID_ARG, "load failed for model '%s': %s\n",
          model_name, lerr->msg);
    }
    fc_err_free(lerr);
  }
  fc_repo_list_free(&repo);
  pthread_mutex_unlock(&s->load_mu);
  fc_tmpdir_unref(files); /* the loaded records hold their own references */
  return err;
}
/* Real core (ModelLifeCycle::AsyncUnload): the unload returns at once; the
 * model turns UNLOADING, then UNAVAILABLE "unloaded" once its in-flight
 * requests are done. (The real core also keeps it UNLOADING while a live
 * response holds it; the fake's unload does not wait for responses, only
 * ServerStop does.) */
TRITONSERVER_Error*
TRITONSERVER_ServerUnloadModel(TRITONSERVER_Server* server, const char* model_name)
{
  SERVER_CHECK(server);
  fc_server* s = (fc_server*)server;
  TRITONSERVER_Error* err = control_check(s);
  if (err) {
    return err;
  }
  pthread_mutex_lock(&s->load_mu);
  fc_server_join_unloaders(s, false);
  abort_if_just_loaded(s, model_name, "TRITONSERVER_ServerUnloadModel");
  fc_model_unload_async(s, model_name); /* unknown names are a no-op */
  pthread_mutex_unlock(&s->load_mu);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerUnloadModelAndDependents(
    TRITONSERVER_Server* server, const char* model_name)
{
  /* No ensembles here, so there are no dependents. */
  return TRITONSERVER_ServerUnloadModel(server, model_name);
}

/* Real core (ModelRepositoryManager::PollAndUpdate): POLL mode only; new
 * and changed models load, models whose directory went away unload. */
TRITONSERVER_Error*
TRITONSERVER_ServerPollModelRepository(TRITONSERVER_Server* server)
{
  SERVER_CHECK(server);
  fc_server* s = (fc_server*)server;
  if (s->mode != TRITONSERVER_MODEL_CONTROL_POLL) {
    return fc_err(TRITONSERVER_ERROR_UNAVAILABLE, "polling is disabled");
  }
  if (get_state(s) != FC_SS_READY) {
    return NULL;
  }
  pthread_mutex_lock(&s->load_mu);
  fc_server_join_unloaders(s, false);
  fc_repo_list repo;
  fc_repo_scan(s, &repo);
  for (size_t i = 0; i < repo.n; ++i) {
    bool polled = true;
    fc_err_free(fc_model_load(s, &repo.items[i], NULL, &polled));
  }
  /* models whose directory went away are unloaded */
  fc_strset gone = {0};
  pthread_mutex_lock(&s->mu);
  for (fc_model* m = s->models; m; m = m->next) {
    if (!m->retired && m->state == FC_MS_READY && !fc_repo_find(&repo, m->name)) {
      fc_strset_add(&gone, m->name);
    }
  }
  pthread_mutex_unlock(&s->mu);
  for (size_t i = 0; i < gone.n; ++i) {
    fc_model_unload_async(s, gone.items[i]);
  }
  fc_strset_clear(&gone);
  fc_repo_list_free(&repo);
  pthread_mutex_unlock(&s->load_mu);
  return NULL;
}

static void
mapping_free(fc_mapping* m)
{
  free(m->model);
  free(m->repo);
  free(m->path);
}

/* Real core (ModelRepositoryManager::RegisterModelRepository): its checks,
 * in its order and wording. */
TRITONSERVER_Error*
TRITONSERVER_ServerRegisterModelRepository(
    TRITONSERVER_Server* server, const char* repository_path,
    const TRITONSERVER_Parameter** name_mapping, const uint32_t mapping_count)
{
  SERVER_CHECK(server);
  fc_server* s = (fc_server*)server;
  if (name_mapping == NULL && mapping_count != 0) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG,
        "model mappings are not provided while mapping count is non-zero");
  }
  const char* repo = repository_path ? repository_path : "";
  /* Each parameter maps a subdirectory (its name) to a model name (its
   * STRING value); a model name may be mapped once. */
  fc_strset names = {0};
  for (uint32_t i = 0; i < mapping_count; ++i) {
    const TRITONSERVER_Parameter* p = name_mapping[i];
    const char* subdir = (p && p->name) ? p->name : "";
    if (p == NULL || p->type != TRITONSERVER_PARAMETER_STRING) {
      fc_strset_clear(&names);
      return fc_err(
          TRITONSERVER_ERROR_INVALID_ARG,
          "Mapped model name must be a string, found another type for %s",
          subdir);
    }
    if (!fc_strset_add(&names, p->str)) {
      fc_strset_clear(&names);
      return fc_err(
          TRITONSERVER_ERROR_INVALID_ARG,
          "failed to register '%s', there is a conflicting mapping for '%s'",
          repo, p->str);
    }
  }
  fc_strset_clear(&names);
  if (s->mode != TRITONSERVER_MODEL_CONTROL_EXPLICIT) {
    return fc_err(
        TRITONSERVER_ERROR_UNSUPPORTED,
        "repository registration is not allowed if model control mode is not "
        "EXPLICIT");
  }
  struct stat st;
  if (stat(repo, &st) != 0 || !S_ISDIR(st.st_mode)) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG,
        "failed to register '%s', repository not found", repo);
  }
  pthread_mutex_lock(&s->mu);
  if (fc_strset_has(&s->repo_paths, repo)) {
    pthread_mutex_unlock(&s->mu);
    return fc_err(
        TRITONSERVER_ERROR_ALREADY_EXISTS,
        "model repository '%s' has already been registered", repo);
  }
  for (uint32_t i = 0; i < mapping_count; ++i) {
    for (size_t k = 0; k < s->nmappings; ++k) {
      if (strcmp(s->mappings[k].model, name_mapping[i]->str) == 0) {
        pthread_mutex_unlock(&s->mu);
        return fc_err(
            TRITONSERVER_ERROR_ALREADY_EXISTS,
            "failed to register '%s', there is a conflicting mapping for '%s'",
            name_mapping[i]->str, name_mapping[i]->str);
      }
    }
  }
  fc_strset_add(&s->repo_paths, repo);
  if (mapping_count > 0) {
    s->mappings = fc_xrealloc(
        s->mappings, (s->nmappings + mapping_count) * sizeof(fc_mapping));
    for (uint32_t i = 0; i < mapping_count; ++i) {
      fc_mapping* m = &s->mappings[s->nmappings++];
      m->model = fc_strdup(name_mapping[i]->str);
      m->repo = fc_strdup(repo);
      m->path = fc_fmt("%s/%s", repo, name_mapping[i]->name);
    }
  }
  pthread_mutex_unlock(&s->mu);
  FC_LOG_INFO("Model repository registered: %s", repo);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_ServerUnregisterModelRepository(
    TRITONSERVER_Server* server, const char* repository_path)
{
  SERVER_CHECK(server);
  fc_server* s = (fc_server*)server;
  if (s->mode != TRITONSERVER_MODEL_CONTROL_EXPLICIT) {
    return fc_err(
        TRITONSERVER_ERROR_UNSUPPORTED,
        "repository unregistration is not allowed if model control mode is "
        "not EXPLICIT");
  }
  const char* repo = repository_path ? repository_path : "";
  pthread_mutex_lock(&s->mu);
  bool removed = fc_strset_remove(&s->repo_paths, repo);
  if (removed) {
    /* its mappings go with it */
    size_t keep = 0;
    for (size_t k = 0; k < s->nmappings; ++k) {
      if (strcmp(s->mappings[k].repo, repo) == 0) {
        mapping_free(&s->mappings[k]);
      } else {
        s->mappings[keep++] = s->mappings[k];
      }
    }
    s->nmappings = keep;
  }
  pthread_mutex_unlock(&s->mu);
  if (!removed) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG,
        "failed to unregister '%s', repository not found", repo);
  }
  FC_LOG_INFO("Model repository unregistered: %s", repo);
  return NULL;
}

void
fc_server_free_mappings(fc_server* s)
{
  for (size_t k = 0; k < s->nmappings; ++k) {
    mapping_free(&s->mappings[k]);
  }
  free(s->mappings);
  s->mappings = NULL;
  s->nmappings = 0;
}
