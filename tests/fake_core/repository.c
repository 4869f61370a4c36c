/* repository.c - model repository scanning, model records, version
 * selection, loading, unloading and lookups. Real core
 * (ModelRepositoryManager, ModelLifeCycle): a model is a directory of a
 * registered repository (or of a name mapping); its versions are its
 * numeric subdirectories chosen by the version policy; a load makes new
 * records and commits them all or none; each step's checks and their
 * wording are named where they are made. */
#include "fake_core.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char*
fc_model_state_str(fc_model_state s)
{
  switch (s) {
    case FC_MS_UNKNOWN:
      return "UNKNOWN";
    case FC_MS_READY:
      return "READY";
    case FC_MS_UNAVAILABLE:
      return "UNAVAILABLE";
    case FC_MS_LOADING:
      return "LOADING";
    case FC_MS_UNLOADING:
      return "UNLOADING";
  }
  return "<unknown>";
}

/* ------------------------------------------------------------------ */
/* scanning                                                             */
/* ------------------------------------------------------------------ */
static bool
is_dir(const char* path)
{
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool
is_file(const char* path)
{
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Config file of a model dir: configs/<name>.pbtxt when a config name is
 * set and that file exists, else config.pbtxt. Caller frees. */
static char*
config_path(const fc_server* s, const char* model_dir)
{
  if (s->model_config_name && s->model_config_name[0]) {
    char* p = fc_fmt("%s/configs/%s.pbtxt", model_dir, s->model_config_name);
    if (is_file(p)) {
      return p;
    }
    free(p);
  }
  return fc_fmt("%s/config.pbtxt", model_dir);
}

static int
entry_cmp(const void* a, const void* b)
{
  return strcmp(((const fc_repo_entry*)a)->name, ((const fc_repo_entry*)b)->name);
}

/* Every subdirectory of every repository is a model, named after the
 * directory unless a mapping registered with the repository names it. */
void
fc_repo_scan(fc_server* s, fc_repo_list* out)
{
  out->items = NULL;
  out->n = 0;
  size_t cap = 0;
  fc_strset repos = {0};
  fc_mapping* maps = NULL;
  size_t nmaps = 0;
  pthread_mutex_lock(&s->mu);
  fc_strset_copy(&repos, &s->repo_paths);
  if (s->nmappings > 0) {
    maps = fc_xcalloc(s->nmappings, sizeof(fc_mapping));
    for (size_t i = 0; i < s->nmappings; ++i) {
      maps[i].model = fc_strdup(s->mappings[i].model);
      maps[i].path = fc_strdup(s->mappings[i].path);
    }
    nmaps = s->nmappings;
  }
  pthread_mutex_unlock(&s->mu);
  for (size_t r = 0; r < repos.n; ++r) {
    const char* repo = repos.items[r];
    DIR* d = opendir(repo);
    if (d == NULL) {
      FC_LOG_ERROR(
          "failed to poll model repository '%s': failed to open directory %s",
          repo, repo);
      continue;
    }
    struct dirent* de;
    while ((de = readdir(d)) != NULL) {
      if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) {
        continue;
      }
      char* dir = fc_fmt("%s/%s", repo, de->d_name);
      if (!is_dir(dir)) {
        free(dir);
        continue;
      }
      const char* name = de->d_name;
      bool mapped = false;
      for (size_t i = 0; i < nmaps; ++i) {
        if (strcmp(maps[i].path, dir) == 0) {
          name = maps[i].model;
          mapped = true;
        }
      }
      fc_repo_entry* dup = NULL;
      for (size_t i = 0; i < out->n; ++i) {
        if (strcmp(out->items[i].name, name) == 0) {
          dup = &out->items[i];
        }
      }
      if (dup != NULL) {
        dup->dup = 1;
        FC_LOG_ERROR(
            "failed to poll model '%s': not unique across all model "
            "repositories",
            name);
        free(dir);
        continue;
      }
      if (out->n == cap) {
        cap = cap ? cap * 2 : 16;
        out->items = fc_xrealloc(out->items, cap * sizeof(fc_repo_entry));
      }
      fc_repo_entry* e = &out->items[out->n++];
      memset(e, 0, sizeof(*e));
      e->name = fc_strdup(name);
      e->path = dir;
      e->mapped = mapped;
    }
    closedir(d);
  }
  fc_strset_clear(&repos);
  for (size_t i = 0; i < nmaps; ++i) {
    free(maps[i].model);
    free(maps[i].path);
  }
  free(maps);
  if (out->n > 1) {
    qsort(out->items, out->n, sizeof(fc_repo_entry), entry_cmp);
  }
}

void
fc_repo_list_free(fc_repo_list* l)
{
  for (size_t i = 0; i < l->n; ++i) {
    free(l->items[i].name);
    free(l->items[i].path);
  }
  free(l->items);
  l->items = NULL;
  l->n = 0;
}

const fc_repo_entry*
fc_repo_find(const fc_repo_list* l, const char* name)
{
  for (size_t i = 0; i < l->n; ++i) {
    if (strcmp(l->items[i].name, name) == 0) {
      return &l->items[i];
    }
  }
  return NULL;
}

/* ------------------------------------------------------------------ */
/* reading and checking a configuration                                 */
/* ------------------------------------------------------------------ */
static int64_t
file_mtime_ns(const char* path)
{
  struct stat st;
  if (stat(path, &st) != 0) {
    return 0;
  }
  return (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

static char*
read_file(const char* path, size_t* len)
{
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    return NULL;
  }
  fc_sb sb;
  fc_sb_init(&sb);
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
    fc_sb_putn(&sb, chunk, n);
  }
  fclose(f);
  *len = sb.len;
  return fc_sb_take(&sb);
}

static const char*
platform_backend(const char* platform)
{
  if (!strcmp(platform, "tensorrt_plan")) {
    return "tensorrt";
  }
  if (!strcmp(platform, "onnxruntime_onnx")) {
    return "onnxruntime";
  }
  if (!strcmp(platform, "pytorch_libtorch")) {
    return "pytorch";
  }
  if (!strcmp(platform, "tensorflow_graphdef") ||
      !strcmp(platform, "tensorflow_savedmodel")) {
    return "tensorflow";
  }
  return NULL;
}

static char*
check_io(const fc_io* io, const char* kind)
{
  if (io->name == NULL || io->name[0] == '\0') {
    return fc_fmt("model %s must specify 'name'", kind);
  }
  if (io->dtype == TRITONSERVER_TYPE_INVALID) {
    return fc_fmt("model %s '%s' must specify 'data_type'", kind, io->name);
  }
  if (io->ndims == 0) {
    return fc_fmt("model %s '%s' must specify 'dims'", kind, io->name);
  }
  return NULL;
}

/* The checks the real core makes while polling (ValidateModelConfig and,
 * with a strict config, ValidateModelIOConfig). */
static char*
check_config(const fc_server* s, fc_config* c, const char* dir_name)
{
  if (c->backend[0] == '\0') {
    const char* b = platform_backend(c->platform);
    if (b != NULL) {
      free(c->backend);
      c->backend = fc_strdup(b);
    } else if (strcmp(c->platform, "ensemble") != 0) {
      if (c->platform[0] == '\0') {
        return fc_fmt(
            "unexpected platform type '' for %s", c->name);
      }
      return fc_fmt(
          "unexpected platform type '%s' for %s", c->platform, c->name);
    }
  }
  if (c->max_batch_size < 0) {
    return fc_fmt(
        "'max_batch_size' must be non-negative value for %s", c->name);
  }
  if (s->strict_model_config) {
    for (size_t i = 0; i < c->ninputs; ++i) {
      char* e = check_io(&c->inputs[i], "input");
      if (e) {
        return e;
      }
    }
    for (size_t i = 0; i < c->noutputs; ++i) {
      char* e = check_io(&c->outputs[i], "output");
      if (e) {
        return e;
      }
    }
  }
  if (strcmp(c->name, dir_name) != 0) {
    return fc_fmt(
        "unexpected directory name '%s' for model '%s', directory name must "
        "equal model name",
        dir_name, c->name);
  }
  return NULL;
}

/* The fields the core fills in from the model directory before anything
 * else (the python backend, and a custom backend named by the model). */
static char*
autofill_backend(fc_config* c, const char* model_dir, const char* model_name)
{
  if (c->name == NULL || c->name[0] == '\0') {
    free(c->name);
    c->name = fc_strdup(model_name);
  }
  const char* platform = c->platform ? c->platform : "";
  const char* backend = c->backend ? c->backend : "";
  const char* file = c->default_model_filename ? c->default_model_filename : "";
  if (backend[0] != '\0' || platform[0] != '\0') {
    if (strcmp(backend, "python") == 0 && file[0] == '\0') {
      free(c->default_model_filename);
      c->default_model_filename = fc_strdup("model.py");
    }
    return NULL;
  }
  /* The first subdirectory (in name order) stands for every version. */
  char* first = NULL;
  DIR* d = opendir(model_dir);
  if (d != NULL) {
    struct dirent* de;
    while ((de = readdir(d)) != NULL) {
      if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) {
        continue;
      }
      char* sub = fc_fmt("%s/%s", model_dir, de->d_name);
      bool dir = is_dir(sub);
      free(sub);
      if (dir && (first == NULL || strcmp(de->d_name, first) < 0)) {
        free(first);
        first = fc_strdup(de->d_name);
      }
    }
    closedir(d);
  }
  bool python = strcmp(file, "model.py") == 0;
  if (!python && file[0] == '\0' && first != NULL) {
    char* py = fc_fmt("%s/%s/model.py", model_dir, first);
    python = access(py, F_OK) == 0;
    free(py);
  }
  free(first);
  if (python) {
    free(c->backend);
    c->backend = fc_strdup("python");
    if (file[0] == '\0') {
      free(c->default_model_filename);
      c->default_model_filename = fc_strdup("model.py");
    }
    return NULL;
  }
  if (file[0] != '\0') {
    return NULL;
  }
  /* A custom backend: "<anything>.<backend>" names it. */
  const char* dot = strchr(model_name, '.');
  if (dot == NULL) {
    return fc_fmt(
        "Invalid model name: Could not determine backend for model '%s' with "
        "no backend in model configuration. Expected model name of the form "
        "'model.<backend_name>'.",
        model_name);
  }
  free(c->backend);
  c->backend = fc_strdup(dot + 1);
  free(c->default_model_filename);
  c->default_model_filename = fc_fmt("model.%s", dot + 1);
  return NULL;
}

/* Returns a config or NULL with *msg (a poll failure). */
static fc_config*
read_config(
    const fc_server* s, const fc_repo_entry* e, const char* override_json,
    char** msg)
{
  char* detail = NULL;
  fc_node* tree = NULL;
  if (override_json != NULL) {
    tree = fc_json_parse(override_json, strlen(override_json), &detail);
    if (tree == NULL) {
      *msg = fc_fmt("Invalid config override: %s", detail);
      free(detail);
      return NULL;
    }
  } else {
    char* path = config_path(s, e->path);
    if (!is_file(path) && !s->strict_model_config) {
      /* no configuration: everything is filled in */
      tree = fc_node_new("", 0, FC_NODE_MESSAGE);
    } else {
      size_t len = 0;
      char* text = read_file(path, &len);
      if (text == NULL) {
        *msg = fc_fmt(
            "failed to open text file for read %s: %s", path, strerror(errno));
        free(path);
        return NULL;
      }
      tree = fc_pbtxt_parse(text, len, &detail);
      free(text);
      if (tree == NULL) {
        FC_LOG_ERROR("%s: %s", path, detail);
        free(detail);
        *msg = fc_fmt("failed to read text proto from %s", path);
        free(path);
        return NULL;
      }
    }
    free(path);
  }
  fc_config* c = fc_config_from_tree(tree, &detail);
  fc_node_free(tree);
  if (c == NULL) {
    if (override_json != NULL) {
      *msg = fc_fmt("Invalid config override: %s", detail);
    } else {
      char* path = config_path(s, e->path);
      FC_LOG_ERROR("%s: %s", path, detail);
      *msg = fc_fmt("failed to read text proto from %s", path);
      free(path);
    }
    free(detail);
    return NULL;
  }
  char* bad = autofill_backend(c, e->path, e->name);
  if (bad == NULL) {
    fc_config_normalize(c, e->name);
    /* a mapped model takes its mapped name, whatever the config says */
    bad = check_config(s, c, e->mapped ? c->name : e->name);
  }
  if (bad != NULL) {
    fc_config_free(c);
    *msg = bad;
    return NULL;
  }
  if (e->mapped) {
    free(c->name);
    c->name = fc_strdup(e->name);
  }
  return c;
}

/* ------------------------------------------------------------------ */
/* versions                                                             */
/* ------------------------------------------------------------------ */
static int
cmp_desc(const void* a, const void* b)
{
  int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return (x < y) - (x > y);
}

/* Versions to load under the policy, highest first. Caller frees. */
static int64_t*
versions_to_load(const char* model_dir, const fc_config* c, size_t* n)
{
  int64_t* found = NULL;
  size_t nf = 0;
  DIR* d = opendir(model_dir);
  if (d != NULL) {
    struct dirent* de;
    while ((de = readdir(d)) != NULL) {
      const char* nm = de->d_name;
      if (nm[0] < '0' || nm[0] > '9' || (nm[0] == '0' && nm[1] != '\0')) {
        continue; /* not a number, or leading zeros (ignored by the core) */
      }
      char* end = NULL;
      errno = 0;
      long long v = strtoll(nm, &end, 10);
      char* sub = fc_fmt("%s/%s", model_dir, nm);
      bool dir = is_dir(sub);
      free(sub);
      if (errno || *end != '\0' || !dir) {
        continue;
      }
      found = fc_xrealloc(found, (nf + 1) * sizeof(int64_t));
      found[nf++] = (int64_t)v;
    }
    closedir(d);
  }
  if (nf > 1) {
    qsort(found, nf, sizeof(int64_t), cmp_desc);
  }
  int64_t* out = fc_xcalloc(nf + 1, sizeof(int64_t));
  size_t no = 0;
  for (size_t i = 0; i < nf; ++i) {
    bool take = false;
    if (c->vp_kind == FC_VP_ALL) {
      take = true;
    } else if (c->vp_kind == FC_VP_SPECIFIC) {
      for (size_t k = 0; k < c->vp_nversions; ++k) {
        take = take || c->vp_versions[k] == found[i];
      }
    } else {
      take = (int64_t)no < c->vp_latest;
    }
    if (take) {
      out[no++] = found[i];
    }
  }
  free(found);
  *n = no;
  return out;
}

/* ------------------------------------------------------------------ */
/* records                                                              */
/* ------------------------------------------------------------------ */
static fc_model*
model_new(fc_server* s, const fc_repo_entry* e, int64_t version, fc_config* cfg)
{
  fc_model* m = fc_xcalloc(1, sizeof(*m));
  m->server = s;
  m->name = fc_strdup(e->name);
  m->version = version;
  m->path = fc_strdup(e->path);
  m->cfg = cfg;
  m->state = FC_MS_LOADING;
  m->reason = fc_strdup("");
  m->retired = true; /* invisible until the load commits */
  m->tmpdir = fc_tmpdir_ref(e->tmpdir);
  fc_sched_init(m);
  return m;
}

void
fc_model_release_resources(fc_model* m)
{
  pthread_mutex_lock(&m->mu);
  fc_reporter* r = m->reporter;
  fc_tmpdir* d = m->tmpdir;
  m->reporter = NULL;
  m->tmpdir = NULL;
  pthread_mutex_unlock(&m->mu);
  fc_reporter_release(r);
  fc_tmpdir_unref(d);
}

void
fc_model_free(fc_model* m)
{
  fc_model_release_resources(m);
  fc_sched_destroy(m);
  fc_class_labels_free(m);
  fc_config_free(m->cfg);
  free(m->name);
  free(m->path);
  free(m->reason);
  free(m);
}

void
fc_model_response_new(fc_model* m)
{
  pthread_mutex_lock(&m->mu);
  m->live_responses++;
  pthread_mutex_unlock(&m->mu);
}

void
fc_model_response_gone(fc_model* m)
{
  pthread_mutex_lock(&m->mu);
  bool free_now = --m->live_responses == 0 && m->orphaned;
  pthread_mutex_unlock(&m->mu);
  if (free_now) {
    fc_model_free(m);
  }
}

bool
fc_model_held(fc_model* m)
{
  pthread_mutex_lock(&m->mu);
  bool held = m->live_responses > 0;
  pthread_mutex_unlock(&m->mu);
  return held;
}

void
fc_model_drop(fc_model* m)
{
  pthread_mutex_lock(&m->mu);
  bool held = m->live_responses > 0;
  if (held) {
    m->orphaned = true;
    m->server = NULL;
  }
  pthread_mutex_unlock(&m->mu);
  if (!held) {
    fc_model_free(m);
  }
}

static void
set_state_locked(fc_model* m, fc_model_state st, const char* reason)
{
  m->state = st;
  free(m->reason);
  m->reason = fc_strdup(reason ? reason : "");
}

void
fc_model_shutdown(fc_model* m)
{
  fc_sched_stop_accepting(m);
  fc_sched_wait_idle(m, UINT64_MAX);
  fc_sched_join(m);
}

fc_model*
fc_model_find_locked(fc_server* s, const char* name, int64_t version)
{
  fc_model* best = NULL;
  for (fc_model* m = s->models; m; m = m->next) {
    if (m->retired || strcmp(m->name, name) != 0) {
      continue;
    }
    if (version >= 0) {
      if (m->version == version) {
        return m;
      }
    } else if (m->state == FC_MS_READY &&
               (best == NULL || m->version > best->version)) {
      best = m;
    }
  }
  return best;
}

bool
fc_model_known_locked(fc_server* s, const char* name)
{
  for (fc_model* m = s->models; m; m = m->next) {
    if (!m->retired && strcmp(m->name, name) == 0) {
      return true;
    }
  }
  return false;
}

TRITONSERVER_Error*
fc_server_get_model(fc_server* s, const char* name, int64_t version, fc_model** out)
{
  TRITONSERVER_Error* err = NULL;
  pthread_mutex_lock(&s->mu);
  if (!fc_model_known_locked(s, name)) {
    err = fc_err(
        TRITONSERVER_ERROR_NOT_FOUND,
        "Request for unknown model: '%s' is not found", name);
  } else {
    fc_model* m = fc_model_find_locked(s, name, version);
    if (version < 0 && m == NULL) {
      err = fc_err(
          TRITONSERVER_ERROR_NOT_FOUND,
          "Request for unknown model: '%s' has no available versions", name);
    } else if (m == NULL) {
      err = fc_err(
          TRITONSERVER_ERROR_NOT_FOUND,
          "Request for unknown model: '%s' version %lld is not found", name,
          (long long)version);
    } else if (m->state != FC_MS_READY) {
      err = fc_err(
          TRITONSERVER_ERROR_UNAVAILABLE,
          "Request for unknown model: '%s' version %lld is not at ready state",
          name, (long long)version);
    } else {
      *out = m;
    }
  }
  pthread_mutex_unlock(&s->mu);
  return err;
}

/* ------------------------------------------------------------------ */
/* unloading                                                            */
/* ------------------------------------------------------------------ */
typedef struct {
  fc_server* server;
  fc_model* model;
  fc_thread_node* node;
} unloader_arg;

static void*
unloader_main(void* p)
{
  unloader_arg* a = p;
  fc_core_thread = 1;
  fc_model_shutdown(a->model);
  /* As the real core, where a response holds a shared_ptr to its model: a
   * model that a live response still holds stays UNLOADING until the
   * response is deleted. A ServerStop ends the wait (its own loop then
   * counts the model live until the exit timeout). */
  for (;;) {
    pthread_mutex_lock(&a->server->mu);
    bool exiting = a->server->state == FC_SS_EXITING;
    pthread_mutex_unlock(&a->server->mu);
    if (exiting || !fc_model_held(a->model)) {
      break;
    }
    fc_sleep_ns(5000000ull);
  }
  pthread_mutex_lock(&a->server->mu);
  if (a->model->state == FC_MS_UNLOADING || a->model->state == FC_MS_READY) {
    set_state_locked(a->model, FC_MS_UNAVAILABLE, "unloaded");
  }
  a->node->done = true;
  pthread_mutex_unlock(&a->server->mu);
  FC_LOG_INFO(
      "successfully unloaded '%s' version %lld", a->model->name,
      (long long)a->model->version);
  free(a);
  return NULL;
}

/* s->mu held. */
static void
start_unload_locked(fc_server* s, fc_model* m)
{
  set_state_locked(m, FC_MS_UNLOADING, "");
  fc_sched_stop_accepting(m);
  unloader_arg* a = fc_xcalloc(1, sizeof(*a));
  a->server = s;
  a->model = m;
  a->node = fc_xcalloc(1, sizeof(fc_thread_node));
  if (pthread_create(&a->node->tid, NULL, unloader_main, a) != 0) {
    free(a->node);
    free(a);
    FC_LOG_ERROR("failed to start the unload of '%s'", m->name);
    return;
  }
  a->node->next = s->unloaders;
  s->unloaders = a->node;
}

void
fc_model_unload_async(fc_server* s, const char* name)
{
  pthread_mutex_lock(&s->mu);
  for (fc_model* m = s->models; m; m = m->next) {
    if (!m->retired && strcmp(m->name, name) == 0 &&
        (m->state == FC_MS_READY || m->state == FC_MS_LOADING)) {
      start_unload_locked(s, m);
    }
  }
  pthread_mutex_unlock(&s->mu);
}

void
fc_server_join_unloaders(fc_server* s, bool all)
{
  for (;;) {
    fc_thread_node* pick = NULL;
    pthread_mutex_lock(&s->mu);
    for (fc_thread_node** link = &s->unloaders; *link; link = &(*link)->next) {
      if (all || (*link)->done) {
        pick = *link;
        *link = pick->next;
        break;
      }
    }
    pthread_mutex_unlock(&s->mu);
    if (pick == NULL) {
      return;
    }
    pthread_join(pick->tid, NULL);
    free(pick);
  }
}

/* ------------------------------------------------------------------ */
/* loading                                                              */
/* ------------------------------------------------------------------ */
static bool
unmodified_locked(
    fc_server* s, const char* name, const int64_t* versions, size_t nv,
    int64_t mtime)
{
  size_t live = 0;
  for (fc_model* m = s->models; m; m = m->next) {
    if (m->retired || strcmp(m->name, name) != 0 || m->state != FC_MS_READY) {
      continue;
    }
    bool wanted = false;
    for (size_t i = 0; i < nv; ++i) {
      wanted = wanted || versions[i] == m->version;
    }
    if (!wanted || m->config_mtime_ns != mtime) {
      return false;
    }
    live++;
  }
  return live == nv && nv > 0;
}

TRITONSERVER_Error*
fc_model_load(
    fc_server* s, const fc_repo_entry* e, const char* override_json,
    bool* polled)
{
  *polled = true;
  if (e->dup) {
    *polled = false;
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG,
        "model '%s' appears in two or more repositories", e->name);
  }
  char* msg = NULL;
  fc_config* first = read_config(s, e, override_json, &msg);
  if (first == NULL) {
    *polled = false;
    FC_LOG_ERROR("Poll failed for model directory '%s': %s", e->name, msg);
    TRITONSERVER_Error* err = fc_err(TRITONSERVER_ERROR_INVALID_ARG, "%s", msg);
    free(msg);
    return err;
  }
  char* cpath = config_path(s, e->path);
  int64_t mtime = override_json ? -1 : file_mtime_ns(cpath);
  free(cpath);

  size_t nv = 0;
  int64_t* versions = versions_to_load(e->path, first, &nv);
  if (nv == 0) {
    fc_config_free(first);
    free(versions);
    return fc_err(
        TRITONSERVER_ERROR_INVALID_ARG,
        "at least one version must be available under the version policy of "
        "model '%s'",
        e->name);
  }
  pthread_mutex_lock(&s->mu);
  bool same = override_json == NULL && unmodified_locked(s, e->name, versions, nv, mtime);
  pthread_mutex_unlock(&s->mu);
  if (same) {
    fc_config_free(first);
    free(versions);
    return NULL; /* nothing changed: the real core does not reload */
  }

  /* Create and start one record per version. */
  fc_model** fresh = fc_xcalloc(nv, sizeof(fc_model*));
  fc_sb reason;
  fc_sb_init(&reason);
  bool failed = false;
  for (size_t i = 0; i < nv; ++i) {
    fc_config* c = first;
    if (i > 0) {
      char* m2 = NULL;
      c = read_config(s, e, override_json, &m2);
      free(m2);
    }
    fc_model* m = model_new(s, e, versions[i], c);
    m->config_mtime_ns = mtime;
    pthread_mutex_lock(&s->mu);
    m->next = s->models;
    s->models = m;
    pthread_mutex_unlock(&s->mu);
    fresh[i] = m;
    FC_LOG_INFO("loading: %s:%lld", e->name, (long long)versions[i]);

    TRITONSERVER_Error* xerr = NULL;
    m->exec = c ? fc_executor_for(c, &xerr) : NULL;
    if (c != NULL && xerr == NULL) xerr = fc_class_labels_load(m);
    if (c == NULL && xerr == NULL) {
      xerr = fc_err(TRITONSERVER_ERROR_INTERNAL, "failed to read the model configuration");
    }
    if (xerr != NULL) {
      char* why = fc_err_as_string(xerr);
      fc_err_free(xerr);
      FC_LOG_ERROR(
          "failed to load '%s' version %lld: %s", e->name,
          (long long)versions[i], why);
      pthread_mutex_lock(&s->mu);
      set_state_locked(m, FC_MS_UNAVAILABLE, why);
      pthread_mutex_unlock(&s->mu);
      fc_sb_printf(
          &reason, "version %lld is at UNAVAILABLE state: %s;",
          (long long)versions[i], why);
      free(why);
      failed = true;
      fc_model_release_resources(m); /* never started */
    } else {
      fc_sched_start(m);
    }
  }

  /* Commit or roll back, as the core's OnLoadFinal. */
  fc_model** to_stop = fc_xcalloc(nv, sizeof(fc_model*));
  size_t nstop = 0;
  pthread_mutex_lock(&s->mu);
  for (size_t i = 0; i < nv; ++i) {
    fc_model* m = fresh[i];
    fc_model* old = fc_model_find_locked(s, e->name, m->version);
    if (!failed) {
      if (old != NULL) {
        old->retired = true;
        if (old->state == FC_MS_READY || old->state == FC_MS_LOADING) {
          start_unload_locked(s, old);
        }
      }
      m->retired = false;
      m->loaded_ns = fc_now_ns();
      set_state_locked(m, FC_MS_READY, "");
    } else if (m->state == FC_MS_LOADING) {
      /* started fine but the load as a whole failed */
      to_stop[nstop++] = m;
      if (old == NULL) {
        m->retired = false;
      }
    } else if (old == NULL) {
      m->retired = false; /* show the failure reason in the index */
    }
  }
  if (!failed) {
    /* versions no longer selected by the policy are unloaded */
    for (fc_model* m = s->models; m; m = m->next) {
      if (m->retired || strcmp(m->name, e->name) != 0 ||
          m->state != FC_MS_READY) {
        continue;
      }
      bool wanted = false;
      for (size_t i = 0; i < nv; ++i) {
        wanted = wanted || fresh[i] == m;
      }
      if (!wanted) {
        start_unload_locked(s, m);
      }
    }
  }
  pthread_mutex_unlock(&s->mu);

  for (size_t i = 0; i < nstop; ++i) {
    fc_model_shutdown(to_stop[i]);
    pthread_mutex_lock(&s->mu);
    set_state_locked(to_stop[i], FC_MS_UNAVAILABLE, "unloaded");
    pthread_mutex_unlock(&s->mu);
  }
  free(to_stop);
  free(fresh);
  free(versions);

  if (failed) {
    FC_LOG_INFO("failed to load '%s'", e->name);
    TRITONSERVER_Error* err =
        fc_err(TRITONSERVER_ERROR_INVALID_ARG, "%s", reason.data);
    fc_sb_free(&reason);
    return err;
  }
  fc_sb_free(&reason);
  FC_LOG_INFO("successfully loaded '%s'", e->name);
  return NULL;
}
