/* log.c - the process-wide logger (the real core's logging is global too).
 * Real core (triton::common::Logger): one line per message with the level
 * letter, date and time, an id, file:line and the message, quoted and
 * escaped unless TRITON_SERVER_ESCAPE_LOG_MESSAGES=0, in the default or
 * ISO8601 format, to stderr or the log file. */
#include "fake_core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t g_log_mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool g_enabled[3] = {true, true, true}; /* info, warn, error */
static atomic_int g_verbose = 0;
static atomic_int g_format = TRITONSERVER_LOG_DEFAULT;
static FILE* g_file = NULL; /* guarded by g_log_mu */
static char* g_file_name = NULL;

void
fc_log_set_enabled(TRITONSERVER_LogLevel level, bool on)
{
  if ((unsigned)level < 3) {
    atomic_store(&g_enabled[level], on);
  }
}

void
fc_log_set_verbose(int level)
{
  atomic_store(&g_verbose, level);
}

void
fc_log_set_format(TRITONSERVER_LogFormat format)
{
  atomic_store(&g_format, (int)format);
}

TRITONSERVER_Error*
fc_log_set_file(const char* path)
{
  TRITONSERVER_Error* err = NULL;
  pthread_mutex_lock(&g_log_mu);
  if (path == NULL || path[0] == '\0') {
    if (g_file != NULL) {
      fclose(g_file);
    }
    g_file = NULL;
    free(g_file_name);
    g_file_name = NULL;
  } else {
    FILE* f = fopen(path, "a");
    if (f == NULL) {
      err = fc_err(
          TRITONSERVER_ERROR_INTERNAL,
          "fake core: Failed to open log file: %s", strerror(errno));
    } else {
      if (g_file != NULL) {
        fclose(g_file);
      }
      g_file = f;
      free(g_file_name);
      g_file_name = fc_strdup(path);
    }
  }
  pthread_mutex_unlock(&g_log_mu);
  return err;
}

bool
fc_log_enabled(TRITONSERVER_LogLevel level)
{
  switch (level) {
    case TRITONSERVER_LOG_INFO:
    case TRITONSERVER_LOG_WARN:
    case TRITONSERVER_LOG_ERROR:
      return atomic_load(&g_enabled[level]);
    case TRITONSERVER_LOG_VERBOSE:
      return atomic_load(&g_verbose) >= 1;
  }
  return false;
}

static bool
escape_messages(void)
{
  const char* v = getenv("TRITON_SERVER_ESCAPE_LOG_MESSAGES");
  return !(v != NULL && strcmp(v, "0") == 0);
}

static void
log_emit(TRITONSERVER_LogLevel level, const char* file, int line, const char* msg)
{
  char letter = 'I';
  if (level == TRITONSERVER_LOG_WARN) {
    letter = 'W';
  } else if (level == TRITONSERVER_LOG_ERROR) {
    letter = 'E';
  }
  const char* base = file ? strrchr(file, '/') : NULL;
  base = base ? base + 1 : (file ? file : "");

  struct timeval tv;
  gettimeofday(&tv, NULL);
  struct tm tm;
  time_t secs = tv.tv_sec;
  gmtime_r(&secs, &tm);

  fc_sb sb;
  fc_sb_init(&sb);
  if (atomic_load(&g_format) == TRITONSERVER_LOG_ISO8601) {
    fc_sb_printf(
        &sb, "%04d-%02d-%02dT%02d:%02d:%02dZ %c %d %s:%d] ", tm.tm_year + 1900,
        tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, letter,
        (int)getpid(), base, line);
  } else {
    fc_sb_printf(
        &sb, "%c%02d%02d %02d:%02d:%02d.%06ld %d %s:%d] ", letter,
        tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
        (long)tv.tv_usec, (int)getpid(), base, line);
  }
  if (escape_messages()) {
    fc_json_str(&sb, msg);
  } else {
    fc_sb_puts(&sb, msg);
  }
  fc_sb_putc(&sb, '\n');

  pthread_mutex_lock(&g_log_mu);
  FILE* out = g_file ? g_file : stderr;
  fwrite(sb.data, 1, sb.len, out);
  fflush(out);
  pthread_mutex_unlock(&g_log_mu);
  fc_sb_free(&sb);
}

void
fc_log_at(
    TRITONSERVER_LogLevel level, const char* file, int line, const char* fmt,
    ...)
{
  if (!fc_log_enabled(level)) {
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  char* msg = fc_vfmt(fmt, ap);
  va_end(ap);
  log_emit(level == TRITONSERVER_LOG_VERBOSE ? TRITONSERVER_LOG_INFO : level,
           file, line, msg);
  free(msg);
}

void
fc_log_and_drop(TRITONSERVER_Error* err, const char* what)
{
  if (err == NULL) {
    return;
  }
  FC_LOG_ERROR("%s: %s", what, err->msg);
  fc_err_free(err);
}

bool
TRITONSERVER_LogIsEnabled(TRITONSERVER_LogLevel level)
{
  return fc_log_enabled(level);
}

TRITONSERVER_Error*
TRITONSERVER_LogMessage(
    TRITONSERVER_LogLevel level, const char* filename, const int line,
    const char* msg)
{
  switch (level) {
    case TRITONSERVER_LOG_INFO:
    case TRITONSERVER_LOG_WARN:
    case TRITONSERVER_LOG_ERROR:
    case TRITONSERVER_LOG_VERBOSE:
      fc_log_at(level, filename, line, "%s", msg ? msg : "");
      return NULL;
  }
  return fc_err(
      TRITONSERVER_ERROR_INVALID_ARG, "unknown logging level '%d'", (int)level);
}
