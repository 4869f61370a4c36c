/* load_files.c - models loaded from files given as load parameters
 * ("file:<relative path>" BYTES parameters with a "config" STRING): the
 * files go into a fresh temporary model directory that lives as long as
 * the model records loaded from it. Real core
 * (ModelRepositoryManager::ModelDirectoryOverride): the same temporary
 * directory, removed with the last model loaded from it, and the same
 * checks of the parameters (named where they are made). */
#include "fake_core.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fc_tmpdir {
  char* path;
  atomic_int refs;
};

static int
remove_entry(const char* path, const struct stat* st, int flag, struct FTW* ftw)
{
  FC_UNUSED(st);
  FC_UNUSED(flag);
  FC_UNUSED(ftw);
  if (remove(path) != 0) {
    FC_LOG_ERROR("failed to delete '%s': %s", path, strerror(errno));
  }
  return 0;
}

static void
remove_tree(const char* path)
{
  nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char*
fc_tmpdir_path(const fc_tmpdir* d)
{
  return d->path;
}

fc_tmpdir*
fc_tmpdir_ref(fc_tmpdir* d)
{
  if (d != NULL) {
    atomic_fetch_add(&d->refs, 1);
  }
  return d;
}

void
fc_tmpdir_unref(fc_tmpdir* d)
{
  if (d != NULL && atomic_fetch_sub(&d->refs, 1) == 1) {
    remove_tree(d->path);
    free(d->path);
    free(d);
  }
}

bool
fc_params_have_files(const TRITONSERVER_Parameter** params, uint64_t n)
{
  for (uint64_t i = 0; i < n; ++i) {
    if (params[i] && params[i]->name && strncmp(params[i]->name, "file:", 5) == 0) {
      return true;
    }
  }
  return false;
}

/* 'rel' resolved against the directory, "." and ".." folded without
 * following anything; NULL when it leaves the directory. */
static char*
inside_path(const char* dir, const char* rel)
{
  char** parts = NULL;
  size_t n = 0;
  char* copy = fc_strdup(rel);
  char* save = NULL;
  bool escapes = false;
  for (char* tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
    if (strcmp(tok, ".") == 0) {
      continue;
    }
    if (strcmp(tok, "..") == 0) {
      if (n == 0) {
        escapes = true;
        break;
      }
      n--;
      continue;
    }
    parts = fc_xrealloc(parts, (n + 1) * sizeof(char*));
    parts[n++] = tok;
  }
  char* out = NULL;
  if (!escapes) {
    fc_sb sb;
    fc_sb_init(&sb);
    fc_sb_puts(&sb, dir);
    for (size_t i = 0; i < n; ++i) {
      fc_sb_putc(&sb, '/');
      fc_sb_puts(&sb, parts[i]);
    }
    out = fc_sb_take(&sb);
  }
  free(parts);
  free(copy);
  return out;
}

/* mkdir -p for the parent directories of 'path' below 'root'. */
static char*
make_parents(const char* root, const char* path, const char* param)
{
  size_t rootlen = strlen(root);
  if (strlen(path) <= rootlen) {
    return NULL; /* the directory itself */
  }
  char* buf = fc_strdup(path);
  for (char* p = buf + rootlen + 1; *p; ++p) {
    if (*p != '/') {
      continue;
    }
    *p = '\0';
    struct stat st;
    if (stat(buf, &st) == 0) {
      if (!S_ISDIR(st.st_mode)) {
        free(buf);
        return fc_fmt(
            "Invalid file parameter '%s', directory has been created as a file",
            param);
      }
    } else if (mkdir(buf, S_IRWXU) != 0) {
      char* msg = fc_fmt(
          "Failed to create directory '%s', errno:%s", buf, strerror(errno));
      free(buf);
      return msg;
    }
    *p = '/';
  }
  free(buf);
  return NULL;
}

static char*
write_file(const char* path, const void* data, size_t size)
{
  FILE* f = fopen(path, "wb");
  if (f == NULL) {
    return fc_fmt(
        "failed to open binary file for write %s: %s", path, strerror(errno));
  }
  if (size > 0 && fwrite(data, 1, size, f) != size) {
    char* msg = fc_fmt("failed to write %s: %s", path, strerror(errno));
    fclose(f);
    return msg;
  }
  fclose(f);
  return NULL;
}

fc_tmpdir*
fc_tmpdir_from_params(
    const TRITONSERVER_Parameter** params, uint64_t n, char** msg)
{
  const char* base = getenv("TMPDIR");
  if (base == NULL || base[0] == '\0') {
    base = "/tmp";
  }
  char* tmpl = fc_fmt("%s/folderXXXXXX", base);
  if (mkdtemp(tmpl) == NULL) {
    *msg = fc_fmt(
        "Failed to create local temp folder: %s, errno:%s", tmpl,
        strerror(errno));
    free(tmpl);
    return NULL;
  }
  char real[PATH_MAX];
  if (realpath(tmpl, real) == NULL) {
    *msg = fc_fmt("Nonexistent path '%s': %s", tmpl, strerror(errno));
    remove_tree(tmpl);
    free(tmpl);
    return NULL;
  }
  free(tmpl);
  fc_tmpdir* d = fc_xcalloc(1, sizeof(*d));
  d->path = fc_strdup(real);
  atomic_init(&d->refs, 1);

  bool found_config = false;
  char* err = NULL;
  for (uint64_t i = 0; i < n && err == NULL; ++i) {
    const TRITONSERVER_Parameter* p = params[i];
    if (p == NULL || p->name == NULL) {
      continue;
    }
    if (strcmp(p->name, "config") == 0) {
      if (p->type != TRITONSERVER_PARAMETER_STRING) {
        err = fc_strdup(
            "Config parameter 'config' must have string type for its value");
        break;
      }
      /* The override itself is read by the load; here it only has to be
       * a valid model configuration. */
      char* detail = NULL;
      fc_node* tree = fc_json_parse(p->str, strlen(p->str), &detail);
      fc_config* c = tree ? fc_config_from_tree(tree, &detail) : NULL;
      fc_node_free(tree);
      fc_config_free(c);
      if (c == NULL) {
        err = detail ? detail : fc_strdup("invalid model configuration");
        break;
      }
      free(detail);
      found_config = true;
    } else if (strncmp(p->name, "file:", 5) == 0) {
      if (p->type != TRITONSERVER_PARAMETER_BYTES) {
        err = fc_fmt(
            "File parameter '%s' must have bytes type for its value", p->name);
        break;
      }
      char* path = inside_path(d->path, p->name + 5);
      if (path == NULL) {
        err = fc_fmt(
            "Invalid file parameter '%s' with normalized path '%s' must stay "
            "within model directory.",
            p->name, p->name + 5);
        break;
      }
      err = make_parents(d->path, path, p->name);
      if (err == NULL) {
        err = write_file(path, p->bytes, (size_t)p->byte_size);
      }
      free(path);
    }
  }
  if (err == NULL && !found_config) {
    err = fc_strdup(
        "Load parameter 'config' must be specified for model file override");
  }
  if (err != NULL) {
    *msg = err;
    fc_tmpdir_unref(d);
    return NULL;
  }
  return d;
}
