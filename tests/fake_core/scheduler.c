/* scheduler.c - per-model request queue, instance worker threads, stream
 * threads, in-flight accounting and cancellable sleeps. Real core
 * (DynamicBatchScheduler, TritonModelInstance): one queue per model, one
 * thread per model instance taking requests in order, statistics per model
 * (InferenceStatsAggregator); a stopped scheduler refuses requests with
 * its wording. The fake never batches several requests together. */
#include "fake_core.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void
fc_sched_init(fc_model* m)
{
  pthread_mutex_init(&m->mu, NULL);
  fc_cond_init_mono(&m->queue_cv);
  fc_cond_init_mono(&m->idle_cv);
  fc_cond_init_mono(&m->sleep_cv);
}

void
fc_sched_destroy(fc_model* m)
{
  pthread_mutex_destroy(&m->mu);
  pthread_cond_destroy(&m->queue_cv);
  pthread_cond_destroy(&m->idle_cv);
  pthread_cond_destroy(&m->sleep_cv);
  free(m->stats.batches);
  m->stats.batches = NULL;
}

static void
timespec_from_ns(struct timespec* ts, uint64_t ns)
{
  ts->tv_sec = (time_t)(ns / 1000000000ull);
  ts->tv_nsec = (long)(ns % 1000000000ull);
}

static TRITONSERVER_InferenceRequest*
queue_pop_locked(fc_model* m)
{
  TRITONSERVER_InferenceRequest* r = m->qhead;
  if (r != NULL) {
    m->qhead = r->qnext;
    if (m->qhead == NULL) {
      m->qtail = NULL;
    }
    r->qnext = NULL;
    m->qlen--;
    fc_reporter_pending(m->reporter, -1);
  }
  return r;
}

static void
run_one(fc_model* m, TRITONSERVER_InferenceRequest* req)
{
  req->exec_start_ns = fc_now_ns();
  /* With a dynamic batcher the real core answers requests that were
   * cancelled while queued with a CANCELLED error and never runs them. */
  if (m->cfg->has_dynamic_batching && atomic_load(&req->factory->cancelled)) {
    fc_respond_error(req->factory, fc_err(TRITONSERVER_ERROR_CANCELLED, "%s", ""));
    req->fail_reason = FC_FAIL_CANCELED;
    fc_request_release(req, false);
    return;
  }
  req->executed = true;
  atomic_store(&req->state, FC_RS_EXECUTING);
  m->exec->execute(m, req); /* req may be gone now */
}

static void*
worker_main(void* arg)
{
  fc_model* m = arg;
  fc_core_thread = 1;
  pthread_mutex_lock(&m->mu);
  for (;;) {
    while (m->qhead == NULL && !m->shutdown) {
      pthread_cond_wait(&m->queue_cv, &m->mu);
    }
    TRITONSERVER_InferenceRequest* req = queue_pop_locked(m);
    if (req == NULL) {
      break; /* shutdown with an empty queue */
    }
    pthread_mutex_unlock(&m->mu);
    run_one(m, req);
    pthread_mutex_lock(&m->mu);
  }
  pthread_mutex_unlock(&m->mu);
  return NULL;
}

/* The config parameters initialize_delay_ms and finalize_delay_ms: as the
 * Python model tests/slow_models/slow_load, whose initialize() and finalize()
 * sleep that long, the load and the unload (ServerNew, ServerLoadModel,
 * ServerStop) take that much longer. */
static void
model_delay(fc_model* m, const char* key)
{
  const char* v = m->cfg ? fc_config_param(m->cfg, key) : NULL;
  long ms = v ? strtol(v, NULL, 10) : 0;
  if (ms > 0) {
    fc_sleep_ns((uint64_t)ms * 1000000ull);
  }
}

void
fc_sched_start(fc_model* m)
{
  model_delay(m, "initialize_delay_ms");
  size_t n = fc_config_instance_count(m->cfg);
  /* The model's metrics exist while its instances do. */
  fc_reporter* reporter = fc_reporter_acquire(m->name, m->version);
  pthread_mutex_lock(&m->mu);
  m->reporter = reporter;
  m->accepting = true;
  m->shutdown = false;
  m->workers = fc_xcalloc(n, sizeof(pthread_t));
  m->nworkers = 0;
  for (size_t i = 0; i < n; ++i) {
    if (pthread_create(&m->workers[i], NULL, worker_main, m) == 0) {
      m->nworkers++;
    }
  }
  m->threads_running = true;
  pthread_mutex_unlock(&m->mu);
}

static TRITONSERVER_Error*
stopping_error(TRITONSERVER_InferenceRequest* req)
{
  char* prefix = fc_request_log_prefix(req);
  TRITONSERVER_Error* err = fc_err(
      TRITONSERVER_ERROR_UNAVAILABLE,
      "%sServer is stopping, scheduler for model has stopped accepting new "
      "inference requests",
      prefix);
  free(prefix);
  return err;
}

/* TENSOR_QUEUE_INPUT for every input: one buffer is reported in place,
 * several are gathered into host memory first. */
static void
trace_inputs(TRITONSERVER_InferenceRequest* req)
{
  TRITONSERVER_InferenceTrace* t = req->trace;
  if (!fc_trace_wants_tensors(t)) {
    return;
  }
  for (const fc_input* in = req->inputs; in; in = in->next) {
    const int64_t* shape = in->shape;
    size_t ndims = in->ndims;
    if (in->data.n == 0) {
      FC_LOG_ERROR(
          "TENSOR_QUEUE_INPUT: tensor: %s: no buffer chunk", in->name);
      continue;
    }
    if (in->data.n == 1) {
      const fc_buf* b = &in->data.items[0];
      fc_trace_tensor(
          t, TRITONSERVER_TRACE_TENSOR_QUEUE_INPUT, in->name,
          in->dtype, b->base, b->size, shape, ndims, b->memory_type,
          b->memory_type_id);
      continue;
    }
    size_t total = fc_input_total_bytes(in);
    void* host = fc_xmalloc(total ? total : 1);
    TRITONSERVER_Error* err = fc_input_gather(in, host);
    if (err != NULL) {
      FC_LOG_ERROR(
          "TENSOR_QUEUE_INPUT: tensor: %s: fail to copy buffer: %s",
          in->name, err->msg);
      fc_err_free(err);
    } else {
      fc_trace_tensor(
          t, TRITONSERVER_TRACE_TENSOR_QUEUE_INPUT, in->name,
          in->dtype, host, total, shape, ndims, TRITONSERVER_MEMORY_CPU, 0);
    }
    free(host);
  }
}

TRITONSERVER_Error*
fc_sched_enqueue(fc_model* m, TRITONSERVER_InferenceRequest* req)
{
  pthread_mutex_lock(&m->mu);
  bool accepting = m->accepting;
  pthread_mutex_unlock(&m->mu);
  if (!accepting) {
    return stopping_error(req);
  }
  req->qnext = NULL;
  req->queue_start_ns = fc_now_ns();
  /* Reported on the caller's thread before the request is queued. */
  fc_trace_report(req->trace, TRITONSERVER_TRACE_QUEUE_START, req->queue_start_ns);
  trace_inputs(req);

  pthread_mutex_lock(&m->mu);
  if (!m->accepting) {
    pthread_mutex_unlock(&m->mu);
    return stopping_error(req);
  }
  const fc_config* c = m->cfg;
  /* Real core (the scheduler's queue policy): a full queue refuses the
   * request UNAVAILABLE "Exceeds maximum queue size". */
  if (c->has_dynamic_batching && c->max_queue_size > 0 &&
      m->qlen >= (size_t)c->max_queue_size) {
    pthread_mutex_unlock(&m->mu);
    char* prefix = fc_request_log_prefix(req);
    TRITONSERVER_Error* err = fc_err(
        TRITONSERVER_ERROR_UNAVAILABLE, "%sExceeds maximum queue size", prefix);
    free(prefix);
    return err;
  }
  if (m->qtail) {
    m->qtail->qnext = req;
  } else {
    m->qhead = req;
  }
  m->qtail = req;
  m->qlen++;
  m->inflight++;
  fc_reporter_pending(m->reporter, +1);
  pthread_cond_signal(&m->queue_cv);
  pthread_mutex_unlock(&m->mu);
  return NULL;
}

void
fc_sched_stop_accepting(fc_model* m)
{
  pthread_mutex_lock(&m->mu);
  m->accepting = false;
  pthread_mutex_unlock(&m->mu);
}

bool
fc_sched_wait_idle(fc_model* m, uint64_t deadline_ns)
{
  bool idle = true;
  pthread_mutex_lock(&m->mu);
  if (deadline_ns == UINT64_MAX) {
    while (m->inflight > 0) {
      pthread_cond_wait(&m->idle_cv, &m->mu);
    }
  } else {
    struct timespec ts;
    timespec_from_ns(&ts, deadline_ns);
    while (m->inflight > 0) {
      if (pthread_cond_timedwait(&m->idle_cv, &m->mu, &ts) == ETIMEDOUT) {
        idle = (m->inflight == 0);
        break;
      }
    }
  }
  pthread_mutex_unlock(&m->mu);
  return idle;
}

static void
join_streams_locked(fc_model* m, bool all)
{
  fc_thread_node** link = &m->streams;
  while (*link != NULL) {
    fc_thread_node* n = *link;
    if (all || n->done) {
      *link = n->next;
      pthread_join(n->tid, NULL);
      free(n);
    } else {
      link = &n->next;
    }
  }
}

/* Safe to call from several threads at once (an unloader and ServerStop):
 * one of them joins, the others wait until it is done. */
void
fc_sched_join(fc_model* m)
{
  pthread_mutex_lock(&m->mu);
  while (m->joining) {
    pthread_cond_wait(&m->idle_cv, &m->mu);
  }
  if (!m->threads_running) {
    pthread_mutex_unlock(&m->mu);
    return;
  }
  m->joining = true;
  m->accepting = false;
  m->shutdown = true;
  pthread_cond_broadcast(&m->queue_cv);
  pthread_t* workers = m->workers;
  size_t n = m->nworkers;
  pthread_mutex_unlock(&m->mu);

  for (size_t i = 0; i < n; ++i) {
    pthread_join(workers[i], NULL);
  }
  model_delay(m, "finalize_delay_ms");
  pthread_mutex_lock(&m->mu);
  join_streams_locked(m, true);
  free(m->workers);
  m->workers = NULL;
  m->nworkers = 0;
  m->threads_running = false;
  m->joining = false;
  pthread_cond_broadcast(&m->idle_cv);
  pthread_mutex_unlock(&m->mu);
  /* The instances are gone: so are the model's metrics and files. */
  fc_model_release_resources(m);
}

void
fc_sched_inflight_dec(fc_model* m)
{
  pthread_mutex_lock(&m->mu);
  if (m->inflight > 0 && --m->inflight == 0) {
    pthread_cond_broadcast(&m->idle_cv);
  }
  pthread_mutex_unlock(&m->mu);
}

typedef struct {
  fc_model* model;
  fc_thread_node* node;
  void (*fn)(void*);
  void* arg;
} stream_start;

static void*
stream_main(void* p)
{
  stream_start* st = p;
  fc_core_thread = 1;
  st->fn(st->arg);
  fc_model* m = st->model;
  /* Mark done and drop the in-flight count in one step: once the mutex is
   * released this thread never takes it again, so a reaper holding the
   * mutex can safely join it. */
  pthread_mutex_lock(&m->mu);
  st->node->done = true;
  if (m->inflight > 0 && --m->inflight == 0) {
    pthread_cond_broadcast(&m->idle_cv);
  }
  pthread_mutex_unlock(&m->mu);
  free(st);
  return NULL;
}

void
fc_sched_spawn_stream(fc_model* m, void (*fn)(void*), void* arg)
{
  stream_start* st = fc_xcalloc(1, sizeof(*st));
  st->model = m;
  st->fn = fn;
  st->arg = arg;
  st->node = fc_xcalloc(1, sizeof(fc_thread_node));

  pthread_mutex_lock(&m->mu);
  join_streams_locked(m, false); /* reap finished ones */
  m->inflight++;
  if (pthread_create(&st->node->tid, NULL, stream_main, st) != 0) {
    /* Could not start a thread: run inline so the stream still ends. */
    m->inflight--;
    pthread_mutex_unlock(&m->mu);
    free(st->node);
    free(st);
    fn(arg);
    return;
  }
  st->node->next = m->streams;
  m->streams = st->node;
  pthread_mutex_unlock(&m->mu);
}

bool
fc_sched_sleep(fc_model* m, fc_factory* f, uint64_t ms)
{
  uint64_t deadline = fc_now_ns() + ms * 1000000ull;
  struct timespec ts;
  timespec_from_ns(&ts, deadline);
  bool cut = false;
  pthread_mutex_lock(&m->mu);
  for (;;) {
    if ((f != NULL && atomic_load(&f->cancelled)) || m->teardown) {
      cut = true;
      break;
    }
    if (ms == 0 ||
        pthread_cond_timedwait(&m->sleep_cv, &m->mu, &ts) == ETIMEDOUT) {
      break;
    }
  }
  pthread_mutex_unlock(&m->mu);
  return cut;
}

bool
fc_sched_stream_stop(fc_model* m, fc_factory* f)
{
  if (atomic_load(&f->cancelled)) {
    return true;
  }
  pthread_mutex_lock(&m->mu);
  bool t = m->teardown;
  pthread_mutex_unlock(&m->mu);
  return t;
}

void
fc_stats_record(
    fc_model* m, bool success, uint64_t queue_ns, uint64_t compute_ns,
    uint64_t batch, fc_fail_reason reason)
{
  pthread_mutex_lock(&m->mu);
  if (success) {
    fc_reporter_success(
        m->reporter, batch, queue_ns + compute_ns, queue_ns, 0, compute_ns, 0);
  } else {
    fc_reporter_failure(m->reporter, reason);
  }
  fc_stats* s = &m->stats;
  if (success) {
    s->success.count++;
    s->success.ns += queue_ns + compute_ns;
    s->queue.count++;
    s->queue.ns += queue_ns;
    s->compute_infer.count++;
    s->compute_infer.ns += compute_ns;
    s->compute_input.count++;
    s->compute_output.count++;
    s->inference_count += batch;
    s->execution_count++;
    s->last_inference_ms = fc_wall_ms();
    fc_batch_stat* b = NULL;
    for (size_t i = 0; i < s->nbatches; ++i) {
      if (s->batches[i].batch_size == batch) {
        b = &s->batches[i];
      }
    }
    if (b == NULL) {
      s->batches =
          fc_xrealloc(s->batches, (s->nbatches + 1) * sizeof(fc_batch_stat));
      b = &s->batches[s->nbatches++];
      memset(b, 0, sizeof(*b));
      b->batch_size = batch;
    }
    b->input.count++;
    b->infer.count++;
    b->infer.ns += compute_ns;
    b->output.count++;
  } else {
    s->fail.count++;
    s->fail.ns += queue_ns + compute_ns;
  }
  pthread_mutex_unlock(&m->mu);
}
