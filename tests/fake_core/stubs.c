/* stubs.c - entry points the fake core exports but does not implement.
 * Each returns a new UNSUPPORTED error "fake core: <Function> is not
 * implemented" and clears its out-parameters. */
#include "fake_core.h"

#define NOT_IMPLEMENTED() return fc_unsupported(__func__)

/* ---- inference tracing ---- */
TRITONSERVER_Error*
TRITONSERVER_InferenceTraceNew(
    TRITONSERVER_InferenceTrace** trace, TRITONSERVER_InferenceTraceLevel level,
    uint64_t parent_id, TRITONSERVER_InferenceTraceActivityFn_t activity_fn,
    TRITONSERVER_InferenceTraceReleaseFn_t release_fn, void* trace_userp)
{
  FC_UNUSED(level);
  FC_UNUSED(parent_id);
  FC_UNUSED(activity_fn);
  FC_UNUSED(release_fn);
  FC_UNUSED(trace_userp);
  if (trace) {
    *trace = NULL;
  }
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceTensorNew(
    TRITONSERVER_InferenceTrace** trace, TRITONSERVER_InferenceTraceLevel level,
    uint64_t parent_id, TRITONSERVER_InferenceTraceActivityFn_t activity_fn,
    TRITONSERVER_InferenceTraceTensorActivityFn_t tensor_activity_fn,
    TRITONSERVER_InferenceTraceReleaseFn_t release_fn, void* trace_userp)
{
  FC_UNUSED(level);
  FC_UNUSED(parent_id);
  FC_UNUSED(activity_fn);
  FC_UNUSED(tensor_activity_fn);
  FC_UNUSED(release_fn);
  FC_UNUSED(trace_userp);
  if (trace) {
    *trace = NULL;
  }
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceReportActivity(
    TRITONSERVER_InferenceTrace* trace, uint64_t timestamp,
    const char* activity_name)
{
  FC_UNUSED(trace);
  FC_UNUSED(timestamp);
  FC_UNUSED(activity_name);
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceDelete(TRITONSERVER_InferenceTrace* trace)
{
  FC_UNUSED(trace);
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceId(TRITONSERVER_InferenceTrace* trace, uint64_t* id)
{
  FC_UNUSED(trace);
  FC_UNUSED(id);
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceParentId(
    TRITONSERVER_InferenceTrace* trace, uint64_t* parent_id)
{
  FC_UNUSED(trace);
  FC_UNUSED(parent_id);
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceModelName(
    TRITONSERVER_InferenceTrace* trace, const char** model_name)
{
  FC_UNUSED(trace);
  FC_UNUSED(model_name);
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceModelVersion(
    TRITONSERVER_InferenceTrace* trace, int64_t* model_version)
{
  FC_UNUSED(trace);
  FC_UNUSED(model_version);
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceRequestId(
    TRITONSERVER_InferenceTrace* trace, const char** request_id)
{
  FC_UNUSED(trace);
  FC_UNUSED(request_id);
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceSpawnChildTrace(
    TRITONSERVER_InferenceTrace* trace, TRITONSERVER_InferenceTrace** child_trace)
{
  FC_UNUSED(trace);
  if (child_trace) {
    *child_trace = NULL;
  }
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceSetContext(
    TRITONSERVER_InferenceTrace* trace, const char* trace_context)
{
  FC_UNUSED(trace);
  FC_UNUSED(trace_context);
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_InferenceTraceContext(
    TRITONSERVER_InferenceTrace* trace, const char** trace_context)
{
  FC_UNUSED(trace);
  FC_UNUSED(trace_context);
  NOT_IMPLEMENTED();
}

/* ---- server metrics (Prometheus text) ---- */
TRITONSERVER_Error*
TRITONSERVER_ServerMetrics(TRITONSERVER_Server* server, TRITONSERVER_Metrics** metrics)
{
  FC_UNUSED(server);
  if (metrics) {
    *metrics = NULL;
  }
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_MetricsDelete(TRITONSERVER_Metrics* metrics)
{
  FC_UNUSED(metrics);
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_MetricsFormatted(
    TRITONSERVER_Metrics* metrics, TRITONSERVER_MetricFormat format,
    const char** base, size_t* byte_size)
{
  FC_UNUSED(metrics);
  FC_UNUSED(format);
  if (base) {
    *base = NULL;
  }
  if (byte_size) {
    *byte_size = 0;
  }
  NOT_IMPLEMENTED();
}

/* ---- custom metrics ---- */
TRITONSERVER_Error*
TRITONSERVER_MetricFamilyNew(
    TRITONSERVER_MetricFamily** family, const TRITONSERVER_MetricKind kind,
    const char* name, const char* description)
{
  FC_UNUSED(kind);
  FC_UNUSED(name);
  FC_UNUSED(description);
  if (family) {
    *family = NULL;
  }
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_MetricFamilyDelete(TRITONSERVER_MetricFamily* family)
{
  FC_UNUSED(family);
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_GetMetricFamilyKind(
    TRITONSERVER_MetricFamily* family, TRITONSERVER_MetricKind* kind)
{
  FC_UNUSED(family);
  FC_UNUSED(kind);
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_MetricArgsNew(TRITONSERVER_MetricArgs** args)
{
  if (args) {
    *args = NULL;
  }
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_MetricArgsSetHistogram(
    TRITONSERVER_MetricArgs* args, const double* buckets,
    const uint64_t buckets_count)
{
  FC_UNUSED(args);
  FC_UNUSED(buckets);
  FC_UNUSED(buckets_count);
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_MetricArgsDelete(TRITONSERVER_MetricArgs* args)
{
  FC_UNUSED(args);
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_MetricNew(
    TRITONSERVER_Metric** metric, TRITONSERVER_MetricFamily* family,
    const TRITONSERVER_Parameter** labels, const uint64_t label_count)
{
  FC_UNUSED(family);
  FC_UNUSED(labels);
  FC_UNUSED(label_count);
  if (metric) {
    *metric = NULL;
  }
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_MetricNewWithArgs(
    TRITONSERVER_Metric** metric, TRITONSERVER_MetricFamily* family,
    const TRITONSERVER_Parameter** labels, const uint64_t label_count,
    const TRITONSERVER_MetricArgs* args)
{
  FC_UNUSED(family);
  FC_UNUSED(labels);
  FC_UNUSED(label_count);
  FC_UNUSED(args);
  if (metric) {
    *metric = NULL;
  }
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_MetricDelete(TRITONSERVER_Metric* metric)
{
  FC_UNUSED(metric);
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_MetricValue(TRITONSERVER_Metric* metric, double* value)
{
  FC_UNUSED(metric);
  FC_UNUSED(value);
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_MetricIncrement(TRITONSERVER_Metric* metric, double value)
{
  FC_UNUSED(metric);
  FC_UNUSED(value);
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_MetricSet(TRITONSERVER_Metric* metric, double value)
{
  FC_UNUSED(metric);
  FC_UNUSED(value);
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_MetricObserve(TRITONSERVER_Metric* metric, double value)
{
  FC_UNUSED(metric);
  FC_UNUSED(value);
  NOT_IMPLEMENTED();
}

TRITONSERVER_Error*
TRITONSERVER_GetMetricKind(TRITONSERVER_Metric* metric, TRITONSERVER_MetricKind* kind)
{
  FC_UNUSED(metric);
  FC_UNUSED(kind);
  NOT_IMPLEMENTED();
}
