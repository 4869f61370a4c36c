/* metric_family.c - custom metrics: TRITONSERVER_MetricFamily,
 * TRITONSERVER_MetricArgs and TRITONSERVER_Metric, kept in the registry of
 * metrics.c with the core's own metrics. */
#include "fake_core.h"

#include <stdlib.h>
#include <string.h>

struct TRITONSERVER_MetricFamily {
  fc_pfamily* family;
  TRITONSERVER_MetricKind kind;
  pthread_mutex_t mu;
  size_t live; /* metrics created from this handle and not deleted */
};

struct TRITONSERVER_MetricArgs {
  int kind; /* -1 until a kind is set */
  double* buckets;
  size_t nbuckets;
};

struct TRITONSERVER_Metric {
  TRITONSERVER_MetricFamily* family; /* NULL once invalidated */
  fc_pmetric* metric;
  TRITONSERVER_MetricKind kind;
};

static const char*
kind_const_name(TRITONSERVER_MetricKind kind)
{
  switch (kind) {
    case TRITONSERVER_METRIC_KIND_COUNTER:
      return "TRITONSERVER_METRIC_KIND_COUNTER";
    case TRITONSERVER_METRIC_KIND_GAUGE:
      return "TRITONSERVER_METRIC_KIND_GAUGE";
    case TRITONSERVER_METRIC_KIND_HISTOGRAM:
      return "TRITONSERVER_METRIC_KIND_HISTOGRAM";
  }
  return "<unknown>";
}

/* ---- families ---- */
TRITONSERVER_Error*
TRITONSERVER_MetricFamilyNew(
    TRITONSERVER_MetricFamily** family, const TRITONSERVER_MetricKind kind,
    const char* name, const char* description)
{
  if (family == NULL || name == NULL) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "invalid argument");
  }
  if (kind != TRITONSERVER_METRIC_KIND_COUNTER &&
      kind != TRITONSERVER_METRIC_KIND_GAUGE &&
      kind != TRITONSERVER_METRIC_KIND_HISTOGRAM) {
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG,
        "Unsupported kind passed to MetricFamily constructor.");
  }
  char* why = NULL;
  fc_pfamily* f =
      fc_registry_family(kind, name, description ? description : "", &why);
  if (f == NULL) {
    TRITONSERVER_Error* e = fc_err(TRITONSERVER_ERROR_INVALID_ARG, "%s", why);
    free(why);
    return e;
  }
  TRITONSERVER_MetricFamily* h = fc_xcalloc(1, sizeof(*h));
  h->family = f;
  h->kind = kind;
  pthread_mutex_init(&h->mu, NULL);
  fc_count_inc(FC_K_METRIC_FAMILY);
  *family = h;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_MetricFamilyDelete(TRITONSERVER_MetricFamily* family)
{
  if (family == NULL) {
    return NULL;
  }
  pthread_mutex_lock(&family->mu);
  size_t live = family->live;
  pthread_mutex_unlock(&family->mu);
  if (live > 0) {
    return fc_err(
        TRITONSERVER_ERROR_INTERNAL,
        "Must call MetricDelete on all dependent metrics before calling "
        "MetricFamilyDelete.");
  }
  /* The registered family stays (the real core cannot remove it either);
   * without metrics it is left out of the text. */
  pthread_mutex_destroy(&family->mu);
  free(family);
  fc_count_dec(FC_K_METRIC_FAMILY);
  return NULL;
}
/* ---- args ---- */
TRITONSERVER_Error*
TRITONSERVER_MetricArgsNew(TRITONSERVER_MetricArgs** args)
{
  if (args == NULL) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "invalid argument");
  }
  TRITONSERVER_MetricArgs* a = fc_xcalloc(1, sizeof(*a));
  a->kind = -1;
  fc_count_inc(FC_K_METRIC_ARGS);
  *args = a;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_MetricArgsSetHistogram(
    TRITONSERVER_MetricArgs* args, const double* buckets,
    const uint64_t buckets_count)
{
  if (args == NULL || (buckets == NULL && buckets_count > 0)) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "invalid argument");
  }
  free(args->buckets);
  args->buckets = fc_xcalloc((size_t)buckets_count + 1, sizeof(double));
  if (buckets_count) {
    memcpy(args->buckets, buckets, (size_t)buckets_count * sizeof(double));
  }
  args->nbuckets = (size_t)buckets_count;
  args->kind = TRITONSERVER_METRIC_KIND_HISTOGRAM;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_MetricArgsDelete(TRITONSERVER_MetricArgs* args)
{
  if (args != NULL) {
    free(args->buckets);
    free(args);
    fc_count_dec(FC_K_METRIC_ARGS);
  }
  return NULL;
}

/* ---- metrics ---- */
TRITONSERVER_Error*
TRITONSERVER_MetricNewWithArgs(
    TRITONSERVER_Metric** metric, TRITONSERVER_MetricFamily* family,
    const TRITONSERVER_Parameter** labels, const uint64_t label_count,
    const TRITONSERVER_MetricArgs* args)
{
  if (metric == NULL || family == NULL || (labels == NULL && label_count > 0)) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "invalid argument");
  }
  fc_label* set = NULL;
  size_t n = 0;
  for (uint64_t i = 0; i < label_count; ++i) {
    const TRITONSERVER_Parameter* p = labels[i];
    if (p == NULL || p->type != TRITONSERVER_PARAMETER_STRING) {
      fc_labels_free(set, n);
      return fc_err(
          TRITONSERVER_ERROR_INVALID_ARG,
          "Parameter [%s] must have a type of TRITONSERVER_PARAMETER_STRING "
          "to be added as a label.",
          (p && p->name) ? p->name : "");
    }
    fc_labels_set(&set, &n, p->name ? p->name : "", p->str ? p->str : "");
  }
  const char* bad = NULL;
  switch (family->kind) {
    case TRITONSERVER_METRIC_KIND_COUNTER:
      if (args != NULL) {
        bad = "Unexpected args found in counter Metric constructor.";
      }
      break;
    case TRITONSERVER_METRIC_KIND_GAUGE:
      if (args != NULL) {
        bad = "Unexpected args found in gauge Metric constructor.";
      }
      break;
    case TRITONSERVER_METRIC_KIND_HISTOGRAM:
      if (args == NULL) {
        bad = "Bucket boundaries not found in Metric args.";
      } else if (args->kind != TRITONSERVER_METRIC_KIND_HISTOGRAM) {
        bad = "Metric args not set to histogram kind.";
      }
      break;
  }
  if (bad != NULL) {
    fc_labels_free(set, n);
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "%s", bad);
  }
  bool hist = family->kind == TRITONSERVER_METRIC_KIND_HISTOGRAM;
  char* why = NULL;
  fc_pmetric* pm = fc_registry_metric(
      family->family, set, n, hist ? args->buckets : NULL,
      hist ? args->nbuckets : 0, &why);
  if (pm == NULL) {
    TRITONSERVER_Error* e = fc_err(TRITONSERVER_ERROR_INVALID_ARG, "%s", why);
    free(why);
    return e;
  }
  TRITONSERVER_Metric* m = fc_xcalloc(1, sizeof(*m));
  m->family = family;
  m->metric = pm;
  m->kind = family->kind;
  pthread_mutex_lock(&family->mu);
  family->live++;
  pthread_mutex_unlock(&family->mu);
  fc_count_inc(FC_K_METRIC);
  *metric = m;
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_MetricNew(
    TRITONSERVER_Metric** metric, TRITONSERVER_MetricFamily* family,
    const TRITONSERVER_Parameter** labels, const uint64_t label_count)
{
  return TRITONSERVER_MetricNewWithArgs(metric, family, labels, label_count, NULL);
}

TRITONSERVER_Error*
TRITONSERVER_MetricDelete(TRITONSERVER_Metric* metric)
{
  if (metric == NULL) {
    return NULL;
  }
  if (metric->family == NULL) {
    return fc_err(
        TRITONSERVER_ERROR_INTERNAL,
        "MetricFamily reference was invalidated before Metric was deleted. "
        "Must call MetricDelete on all dependent metrics before calling "
        "MetricFamilyDelete.");
  }
  TRITONSERVER_MetricFamily* family = metric->family;
  fc_registry_metric_drop(family->family, metric->metric);
  pthread_mutex_lock(&family->mu);
  family->live--;
  pthread_mutex_unlock(&family->mu);
  free(metric);
  fc_count_dec(FC_K_METRIC);
  return NULL;
}

static TRITONSERVER_Error*
invalidated(const char* what)
{
  return fc_err(
      TRITONSERVER_ERROR_INTERNAL, "Could not %s. Metric has been invalidated.",
      what);
}

static TRITONSERVER_Error*
not_supported(TRITONSERVER_MetricKind kind, const char* op)
{
  return fc_err(
      TRITONSERVER_ERROR_UNSUPPORTED, "%s does not support %s",
      kind_const_name(kind), op);
}

TRITONSERVER_Error*
TRITONSERVER_MetricValue(TRITONSERVER_Metric* metric, double* value)
{
  if (metric == NULL || value == NULL) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "invalid argument");
  }
  if (metric->family == NULL) {
    return invalidated("get metric value");
  }
  if (metric->kind == TRITONSERVER_METRIC_KIND_HISTOGRAM) {
    return not_supported(metric->kind, "Value");
  }
  *value = fc_pmetric_value(metric->metric);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_MetricIncrement(TRITONSERVER_Metric* metric, double value)
{
  if (metric == NULL) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "invalid argument");
  }
  if (metric->family == NULL) {
    return invalidated("increment metric value");
  }
  switch (metric->kind) {
    case TRITONSERVER_METRIC_KIND_COUNTER:
      if (value < 0.0) {
        return fc_err(
            TRITONSERVER_ERROR_INVALID_ARG,
            "TRITONSERVER_METRIC_KIND_COUNTER can only be incremented "
            "monotonically by non-negative values.");
      }
      fc_pmetric_add(metric->metric, value);
      return NULL;
    case TRITONSERVER_METRIC_KIND_GAUGE:
      fc_pmetric_add(metric->metric, value);
      return NULL;
    case TRITONSERVER_METRIC_KIND_HISTOGRAM:
      break;
  }
  return not_supported(metric->kind, "Increment");
}

TRITONSERVER_Error*
TRITONSERVER_MetricSet(TRITONSERVER_Metric* metric, double value)
{
  if (metric == NULL) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "invalid argument");
  }
  if (metric->family == NULL) {
    return invalidated("set metric value");
  }
  if (metric->kind != TRITONSERVER_METRIC_KIND_GAUGE) {
    return not_supported(metric->kind, "Set");
  }
  fc_pmetric_set(metric->metric, value);
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_MetricObserve(TRITONSERVER_Metric* metric, double value)
{
  if (metric == NULL) {
    return fc_err(TRITONSERVER_ERROR_INVALID_ARG, "invalid argument");
  }
  if (metric->family == NULL) {
    return invalidated("set metric value");
  }
  if (metric->kind != TRITONSERVER_METRIC_KIND_HISTOGRAM) {
    return not_supported(metric->kind, "Observe");
  }
  fc_pmetric_observe(metric->metric, value);
  return NULL;
}
