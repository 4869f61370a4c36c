/* metrics.c - the process-wide metrics registry (families of counters,
 * gauges and histograms, as the prometheus-cpp registry the real core
 * keeps), Prometheus text output, the per-model reporters and the
 * TRITONSERVER_Metrics API. Custom families and metrics (metric_family.c)
 * live in the same registry. */
#include "fake_core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct fc_pmetric {
  fc_label* labels; /* sorted by name */
  size_t nlabels;
  double value;     /* counter / gauge */
  double* bounds;   /* histogram upper bounds, strictly increasing */
  size_t nbounds;
  uint64_t* counts; /* nbounds + 1 (the last one is +Inf) */
  double sum;
  int refs;
  struct fc_pmetric* next;
};

struct fc_pfamily {
  char* name;
  char* help;
  TRITONSERVER_MetricKind kind;
  fc_pmetric* metrics;
  struct fc_pfamily* next;
};

/* One lock for the registry, its families, metrics and values. Families
 * are never removed (the real core does not remove them either). */
static pthread_mutex_t g_reg_mu = PTHREAD_MUTEX_INITIALIZER;
static fc_pfamily* g_families; /* registration order */
static fc_pfamily** g_families_tail = &g_families;
static bool g_metrics_enabled;

static void core_families_locked(void);

/* ------------------------------------------------------------------ */
/* names                                                                */
/* ------------------------------------------------------------------ */
static bool
name_start_ok(const char* n)
{
  return n[0] != '\0' && !(n[0] >= '0' && n[0] <= '9') &&
         !(n[0] == '_' && n[1] == '_');
}

static bool
alnum(char c)
{
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z');
}

bool
fc_metric_name_ok(const char* n)
{
  if (!name_start_ok(n)) {
    return false;
  }
  for (const char* p = n; *p; ++p) {
    if (!alnum(*p) && *p != '_' && *p != ':') {
      return false;
    }
  }
  return true;
}

bool
fc_label_name_ok(const char* n)
{
  if (!name_start_ok(n)) {
    return false;
  }
  for (const char* p = n; *p; ++p) {
    if (!alnum(*p) && *p != '_') {
      return false;
    }
  }
  return true;
}

/* ------------------------------------------------------------------ */
/* labels                                                               */
/* ------------------------------------------------------------------ */
void
fc_labels_set(fc_label** labels, size_t* n, const char* name, const char* value)
{
  size_t i = 0;
  while (i < *n && strcmp((*labels)[i].name, name) < 0) {
    ++i;
  }
  if (i < *n && strcmp((*labels)[i].name, name) == 0) {
    free((*labels)[i].value); /* a later value replaces an earlier one */
    (*labels)[i].value = fc_strdup(value);
    return;
  }
  *labels = fc_xrealloc(*labels, (*n + 1) * sizeof(fc_label));
  memmove(&(*labels)[i + 1], &(*labels)[i], (*n - i) * sizeof(fc_label));
  (*labels)[i].name = fc_strdup(name);
  (*labels)[i].value = fc_strdup(value);
  (*n)++;
}

void
fc_labels_free(fc_label* labels, size_t n)
{
  for (size_t i = 0; i < n; ++i) {
    free(labels[i].name);
    free(labels[i].value);
  }
  free(labels);
}

/* Order of label sets, as a std::map<std::string, std::string> compares. */
static int
labels_cmp(const fc_label* a, size_t na, const fc_label* b, size_t nb)
{
  for (size_t i = 0; i < na && i < nb; ++i) {
    int c = strcmp(a[i].name, b[i].name);
    if (c == 0) {
      c = strcmp(a[i].value, b[i].value);
    }
    if (c != 0) {
      return c;
    }
  }
  return (na > nb) - (na < nb);
}

/* ------------------------------------------------------------------ */
/* registry                                                             */
/* ------------------------------------------------------------------ */
static fc_pfamily*
family_find_locked(const char* name)
{
  for (fc_pfamily* f = g_families; f; f = f->next) {
    if (strcmp(f->name, name) == 0) {
      return f;
    }
  }
  return NULL;
}

static fc_pfamily*
family_add_locked(
    TRITONSERVER_MetricKind kind, const char* name, const char* help,
    char** err)
{
  fc_pfamily* f = family_find_locked(name);
  if (f != NULL) {
    if (f->kind != kind) {
      *err = fc_strdup("Family name already exists with different type");
      return NULL;
    }
    return f; /* merged: the first help text stays */
  }
  if (!fc_metric_name_ok(name)) {
    *err = fc_strdup("Invalid metric name");
    return NULL;
  }
  f = fc_xcalloc(1, sizeof(*f));
  f->name = fc_strdup(name);
  f->help = fc_strdup(help ? help : "");
  f->kind = kind;
  *g_families_tail = f;
  g_families_tail = &f->next;
  return f;
}

fc_pfamily*
fc_registry_family(
    TRITONSERVER_MetricKind kind, const char* name, const char* help,
    char** err)
{
  pthread_mutex_lock(&g_reg_mu);
  core_families_locked();
  fc_pfamily* f = family_add_locked(kind, name, help, err);
  pthread_mutex_unlock(&g_reg_mu);
  return f;
}

static void
pmetric_free(fc_pmetric* m)
{
  fc_labels_free(m->labels, m->nlabels);
  free(m->bounds);
  free(m->counts);
  free(m);
}

/* Takes over 'labels' (sorted, unique names) in every case. */
static fc_pmetric*
metric_add_locked(
    fc_pfamily* f, fc_label* labels, size_t n, const double* bounds,
    size_t nbounds, char** err)
{
  if (f->kind == TRITONSERVER_METRIC_KIND_HISTOGRAM) {
    for (size_t i = 1; i < nbounds; ++i) {
      if (!(bounds[i - 1] < bounds[i])) {
        fc_labels_free(labels, n);
        *err = fc_strdup("Bucket Boundaries must be strictly sorted");
        return NULL;
      }
    }
  }
  for (fc_pmetric* m = f->metrics; m; m = m->next) {
    if (labels_cmp(m->labels, m->nlabels, labels, n) == 0) {
      fc_labels_free(labels, n);
      m->refs++;
      return m; /* the same label set is the same metric */
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (!fc_label_name_ok(labels[i].name)) {
      fc_labels_free(labels, n);
      *err = fc_strdup("Invalid label name");
      return NULL;
    }
  }
  fc_pmetric* m = fc_xcalloc(1, sizeof(*m));
  m->labels = labels;
  m->nlabels = n;
  m->refs = 1;
  if (f->kind == TRITONSERVER_METRIC_KIND_HISTOGRAM) {
    m->nbounds = nbounds;
    m->bounds = fc_xcalloc(nbounds + 1, sizeof(double));
    if (nbounds) {
      memcpy(m->bounds, bounds, nbounds * sizeof(double));
    }
    m->counts = fc_xcalloc(nbounds + 1, sizeof(uint64_t));
  }
  /* kept sorted by label set, as prometheus-cpp's map of metrics */
  fc_pmetric** link = &f->metrics;
  while (*link && labels_cmp((*link)->labels, (*link)->nlabels, labels, n) < 0) {
    link = &(*link)->next;
  }
  m->next = *link;
  *link = m;
  return m;
}

fc_pmetric*
fc_registry_metric(
    fc_pfamily* f, fc_label* labels, size_t n, const double* bounds,
    size_t nbounds, char** err)
{
  pthread_mutex_lock(&g_reg_mu);
  fc_pmetric* m = metric_add_locked(f, labels, n, bounds, nbounds, err);
  pthread_mutex_unlock(&g_reg_mu);
  return m;
}

static void
metric_drop_locked(fc_pfamily* f, fc_pmetric* m)
{
  if (--m->refs > 0) {
    return;
  }
  for (fc_pmetric** link = &f->metrics; *link; link = &(*link)->next) {
    if (*link == m) {
      *link = m->next;
      break;
    }
  }
  pmetric_free(m);
}

void
fc_registry_metric_drop(fc_pfamily* f, fc_pmetric* m)
{
  pthread_mutex_lock(&g_reg_mu);
  metric_drop_locked(f, m);
  pthread_mutex_unlock(&g_reg_mu);
}

void
fc_pmetric_add(fc_pmetric* m, double v)
{
  pthread_mutex_lock(&g_reg_mu);
  m->value += v;
  pthread_mutex_unlock(&g_reg_mu);
}

void
fc_pmetric_set(fc_pmetric* m, double v)
{
  pthread_mutex_lock(&g_reg_mu);
  m->value = v;
  pthread_mutex_unlock(&g_reg_mu);
}

double
fc_pmetric_value(fc_pmetric* m)
{
  pthread_mutex_lock(&g_reg_mu);
  double v = m->value;
  pthread_mutex_unlock(&g_reg_mu);
  return v;
}

void
fc_pmetric_observe(fc_pmetric* m, double v)
{
  pthread_mutex_lock(&g_reg_mu);
  size_t i = 0; /* first bucket whose bound is >= v (le) */
  while (i < m->nbounds && m->bounds[i] < v) {
    ++i;
  }
  m->counts[i]++;
  m->sum += v;
  pthread_mutex_unlock(&g_reg_mu);
}

/* ------------------------------------------------------------------ */
/* Prometheus text                                                      */
/* ------------------------------------------------------------------ */
/* A double as prometheus-cpp 1.0 streams it: 16 significant digits in the
 * default notation, Nan and +Inf / -Inf spelled out. */
static void
put_double(fc_sb* sb, double v)
{
  if (isnan(v)) {
    fc_sb_puts(sb, "Nan");
  } else if (isinf(v)) {
    fc_sb_puts(sb, v < 0 ? "-Inf" : "+Inf");
  } else {
    fc_sb_printf(sb, "%.16g", v);
  }
}

static void
put_label_value(fc_sb* sb, const char* v)
{
  for (const char* p = v; *p; ++p) {
    if (*p == '\n') {
      fc_sb_puts(sb, "\\n");
    } else if (*p == '\\' || *p == '"') {
      fc_sb_putc(sb, '\\');
      fc_sb_putc(sb, *p);
    } else {
      fc_sb_putc(sb, *p);
    }
  }
}

/* "name<suffix>{labels[,le="x"]} " */
static void
put_head(
    fc_sb* sb, const fc_pfamily* f, const fc_pmetric* m, const char* suffix,
    const char* le, const double* le_value)
{
  fc_sb_puts(sb, f->name);
  fc_sb_puts(sb, suffix);
  if (m->nlabels > 0 || le != NULL || le_value != NULL) {
    fc_sb_putc(sb, '{');
    const char* sep = "";
    for (size_t i = 0; i < m->nlabels; ++i) {
      fc_sb_printf(sb, "%s%s=\"", sep, m->labels[i].name);
      put_label_value(sb, m->labels[i].value);
      fc_sb_putc(sb, '"');
      sep = ",";
    }
    if (le != NULL || le_value != NULL) {
      fc_sb_printf(sb, "%sle=\"", sep);
      if (le != NULL) {
        fc_sb_puts(sb, le);
      } else {
        put_double(sb, *le_value);
      }
      fc_sb_putc(sb, '"');
    }
    fc_sb_putc(sb, '}');
  }
  fc_sb_putc(sb, ' ');
}

static void
put_family(fc_sb* sb, const fc_pfamily* f)
{
  if (f->metrics == NULL) {
    return; /* families without metrics are not collected */
  }
  if (f->help[0] != '\0') {
    fc_sb_printf(sb, "# HELP %s %s\n", f->name, f->help);
  }
  const char* type = f->kind == TRITONSERVER_METRIC_KIND_COUNTER ? "counter"
                     : f->kind == TRITONSERVER_METRIC_KIND_GAUGE ? "gauge"
                                                                 : "histogram";
  fc_sb_printf(sb, "# TYPE %s %s\n", f->name, type);
  for (const fc_pmetric* m = f->metrics; m; m = m->next) {
    if (f->kind != TRITONSERVER_METRIC_KIND_HISTOGRAM) {
      put_head(sb, f, m, "", NULL, NULL);
      put_double(sb, m->value);
      fc_sb_putc(sb, '\n');
      continue;
    }
    uint64_t total = 0;
    for (size_t i = 0; i <= m->nbounds; ++i) {
      total += m->counts[i];
    }
    put_head(sb, f, m, "_count", NULL, NULL);
    fc_sb_printf(sb, "%llu\n", (unsigned long long)total);
    put_head(sb, f, m, "_sum", NULL, NULL);
    put_double(sb, m->sum);
    fc_sb_putc(sb, '\n');
    uint64_t cumulative = 0;
    for (size_t i = 0; i < m->nbounds; ++i) {
      cumulative += m->counts[i];
      put_head(sb, f, m, "_bucket", NULL, &m->bounds[i]);
      fc_sb_printf(sb, "%llu\n", (unsigned long long)cumulative);
    }
    put_head(sb, f, m, "_bucket", "+Inf", NULL);
    fc_sb_printf(sb, "%llu\n", (unsigned long long)total);
  }
}

static char*
registry_text(void)
{
  fc_sb sb;
  fc_sb_init(&sb);
  /* counters, then gauges, then histograms, each in registration order */
  static const TRITONSERVER_MetricKind order[3] = {
      TRITONSERVER_METRIC_KIND_COUNTER, TRITONSERVER_METRIC_KIND_GAUGE,
      TRITONSERVER_METRIC_KIND_HISTOGRAM};
  pthread_mutex_lock(&g_reg_mu);
  for (int k = 0; k < 3; ++k) {
    for (const fc_pfamily* f = g_families; f; f = f->next) {
      if (f->kind == order[k]) {
        put_family(&sb, f);
      }
    }
  }
  pthread_mutex_unlock(&g_reg_mu);
  return fc_sb_take(&sb);
}

/* ------------------------------------------------------------------ */
/* the core's own families and per-model reporters                      */
/* ------------------------------------------------------------------ */
enum {
  R_SUCCESS,
  R_COUNT,
  R_EXEC_COUNT,
  R_REQUEST_US,
  R_QUEUE_US,
  R_INPUT_US,
  R_INFER_US,
  R_OUTPUT_US,
  R_PENDING,
  R_FAIL_BACKEND,
  R_FAIL_CANCELED,
  R_FAIL_OTHER,
  R_FAIL_REJECTED,
  R_N
};

static const struct {
  const char* name;
  TRITONSERVER_MetricKind kind;
  const char* help;
} k_core_families[] = {
    {"nv_inference_request_success", TRITONSERVER_METRIC_KIND_COUNTER,
     "Number of successful inference requests, all batch sizes"},
    {"nv_inference_request_failure", TRITONSERVER_METRIC_KIND_COUNTER,
     "Number of failed inference requests, all batch sizes"},
    {"nv_inference_count", TRITONSERVER_METRIC_KIND_COUNTER,
     "Number of inferences performed (does not include cached requests)"},
    {"nv_inference_exec_count", TRITONSERVER_METRIC_KIND_COUNTER,
     "Number of model executions performed (does not include cached "
     "requests)"},
    {"nv_inference_request_duration_us", TRITONSERVER_METRIC_KIND_COUNTER,
     "Cumulative inference request duration in microseconds (includes cached "
     "requests)"},
    {"nv_inference_queue_duration_us", TRITONSERVER_METRIC_KIND_COUNTER,
     "Cumulative inference queuing duration in microseconds (includes cached "
     "requests)"},
    {"nv_inference_compute_input_duration_us", TRITONSERVER_METRIC_KIND_COUNTER,
     "Cumulative compute input duration in microseconds (does not include "
     "cached requests)"},
    {"nv_inference_compute_infer_duration_us", TRITONSERVER_METRIC_KIND_COUNTER,
     "Cumulative compute inference duration in microseconds (does not include "
     "cached requests)"},
    {"nv_inference_compute_output_duration_us",
     TRITONSERVER_METRIC_KIND_COUNTER,
     "Cumulative inference compute output duration in microseconds (does not "
     "include cached requests)"},
    {"nv_inference_pending_request_count", TRITONSERVER_METRIC_KIND_GAUGE,
     "Instantaneous number of pending requests awaiting execution per-model."},
};
enum {
  F_SUCCESS,
  F_FAILURE,
  F_COUNT,
  F_EXEC_COUNT,
  F_REQUEST_US,
  F_QUEUE_US,
  F_INPUT_US,
  F_INFER_US,
  F_OUTPUT_US,
  F_PENDING,
  F_N
};
static fc_pfamily* g_core[F_N];

/* g_reg_mu held. The core registers its families first, when the registry
 * is created. */
static void
core_families_locked(void)
{
  if (g_core[0] != NULL) {
    return;
  }
  for (int i = 0; i < F_N; ++i) {
    char* err = NULL;
    g_core[i] = family_add_locked(
        k_core_families[i].kind, k_core_families[i].name,
        k_core_families[i].help, &err);
    free(err);
  }
}

static void __attribute__((constructor))
registry_init(void)
{
  pthread_mutex_lock(&g_reg_mu);
  core_families_locked();
  pthread_mutex_unlock(&g_reg_mu);
}

/* The registry is never freed: worker threads of a server still alive at
 * exit may report into it until the very end. */

struct fc_reporter {
  char* model;
  int64_t version;
  int refs;
  fc_pmetric* m[R_N];
  struct fc_reporter* next;
};

static fc_reporter* g_reporters; /* guarded by g_reg_mu */

void
fc_metrics_enable(void)
{
  pthread_mutex_lock(&g_reg_mu);
  g_metrics_enabled = true; /* process-wide once any server asked for it */
  pthread_mutex_unlock(&g_reg_mu);
}

static int
reporter_family(int r)
{
  if (r >= R_FAIL_BACKEND) {
    return F_FAILURE;
  }
  static const int map[] = {
      F_SUCCESS,  F_COUNT,    F_EXEC_COUNT, F_REQUEST_US, F_QUEUE_US,
      F_INPUT_US, F_INFER_US, F_OUTPUT_US,  F_PENDING};
  return map[r];
}

fc_reporter*
fc_reporter_acquire(const char* model, int64_t version)
{
  pthread_mutex_lock(&g_reg_mu);
  if (!g_metrics_enabled) {
    pthread_mutex_unlock(&g_reg_mu);
    return NULL;
  }
  core_families_locked();
  for (fc_reporter* r = g_reporters; r; r = r->next) {
    if (r->version == version && strcmp(r->model, model) == 0) {
      r->refs++;
      pthread_mutex_unlock(&g_reg_mu);
      return r;
    }
  }
  fc_reporter* r = fc_xcalloc(1, sizeof(*r));
  r->model = fc_strdup(model);
  r->version = version;
  r->refs = 1;
  char* ver = fc_fmt("%lld", (long long)version);
  static const char* const reasons[4] = {"BACKEND", "CANCELED", "OTHER", "REJECTED"};
  for (int i = 0; i < R_N; ++i) {
    fc_label* labels = NULL;
    size_t n = 0;
    fc_labels_set(&labels, &n, "model", model);
    fc_labels_set(&labels, &n, "version", ver);
    if (i >= R_FAIL_BACKEND) {
      fc_labels_set(&labels, &n, "reason", reasons[i - R_FAIL_BACKEND]);
    }
    char* err = NULL;
    r->m[i] = metric_add_locked(g_core[reporter_family(i)], labels, n, NULL, 0, &err);
    free(err);
  }
  free(ver);
  r->next = g_reporters;
  g_reporters = r;
  pthread_mutex_unlock(&g_reg_mu);
  return r;
}

void
fc_reporter_release(fc_reporter* r)
{
  if (r == NULL) {
    return;
  }
  pthread_mutex_lock(&g_reg_mu);
  if (--r->refs == 0) {
    for (fc_reporter** link = &g_reporters; *link; link = &(*link)->next) {
      if (*link == r) {
        *link = r->next;
        break;
      }
    }
    for (int i = 0; i < R_N; ++i) {
      if (r->m[i] != NULL) {
        metric_drop_locked(g_core[reporter_family(i)], r->m[i]);
      }
    }
    free(r->model);
    free(r);
  }
  pthread_mutex_unlock(&g_reg_mu);
}

static void
rep_add_locked(fc_reporter* r, int i, double v)
{
  if (r->m[i] != NULL) {
    r->m[i]->value += v;
  }
}

void
fc_reporter_success(
    fc_reporter* r, uint64_t batch, uint64_t request_ns, uint64_t queue_ns,
    uint64_t input_ns, uint64_t infer_ns, uint64_t output_ns)
{
  if (r == NULL) {
    return;
  }
  pthread_mutex_lock(&g_reg_mu);
  rep_add_locked(r, R_SUCCESS, 1);
  rep_add_locked(r, R_COUNT, (double)batch);
  rep_add_locked(r, R_EXEC_COUNT, 1);
  rep_add_locked(r, R_REQUEST_US, (double)(request_ns / 1000));
  rep_add_locked(r, R_QUEUE_US, (double)(queue_ns / 1000));
  rep_add_locked(r, R_INPUT_US, (double)(input_ns / 1000));
  rep_add_locked(r, R_INFER_US, (double)(infer_ns / 1000));
  rep_add_locked(r, R_OUTPUT_US, (double)(output_ns / 1000));
  pthread_mutex_unlock(&g_reg_mu);
}

void
fc_reporter_failure(fc_reporter* r, fc_fail_reason reason)
{
  if (r == NULL) {
    return;
  }
  int i = R_FAIL_BACKEND;
  switch (reason) {
    case FC_FAIL_BACKEND:
      i = R_FAIL_BACKEND;
      break;
    case FC_FAIL_CANCELED:
      i = R_FAIL_CANCELED;
      break;
    case FC_FAIL_OTHER:
      i = R_FAIL_OTHER;
      break;
    case FC_FAIL_REJECTED:
      i = R_FAIL_REJECTED;
      break;
  }
  pthread_mutex_lock(&g_reg_mu);
  rep_add_locked(r, i, 1);
  pthread_mutex_unlock(&g_reg_mu);
}

void
fc_reporter_pending(fc_reporter* r, int delta)
{
  if (r == NULL) {
    return;
  }
  pthread_mutex_lock(&g_reg_mu);
  rep_add_locked(r, R_PENDING, delta);
  pthread_mutex_unlock(&g_reg_mu);
}

/* ------------------------------------------------------------------ */
/* TRITONSERVER_Metrics                                                 */
/* ------------------------------------------------------------------ */
struct TRITONSERVER_Metrics {
  char* text; /* the latest serialization */
};

TRITONSERVER_Error*
TRITONSERVER_ServerMetrics(TRITONSERVER_Server* server, TRITONSERVER_Metrics** metrics)
{
  FC_UNUSED(server); /* the registry is the process's, not the server's */
  if (metrics == NULL) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "metrics is null");
  }
  *metrics = fc_xcalloc(1, sizeof(**metrics));
  fc_count_inc(FC_K_METRICS);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_MetricsDelete(TRITONSERVER_Metrics* metrics)
{
  if (metrics != NULL) {
    free(metrics->text);
    free(metrics);
    fc_count_dec(FC_K_METRICS);
  }
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_MetricsFormatted(
    TRITONSERVER_Metrics* metrics, TRITONSERVER_MetricFormat format,
    const char** base, size_t* byte_size)
{
  if (metrics == NULL || base == NULL || byte_size == NULL) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "invalid argument");
  }
  if (format != TRITONSERVER_METRIC_PROMETHEUS) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG, "unknown metrics format '%d'",
        (int)format);
  }
  /* Serialized on every call; the previous text is replaced. */
  free(metrics->text);
  metrics->text = registry_text();
  *base = metrics->text;
  *byte_size = strlen(metrics->text);
  return NULL;
}
