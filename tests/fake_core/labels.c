/* labels.c - the label files of a model's outputs (`label_filename` in an output's configuration),
 * read when the model loads, and a class's label for
 * TRITONSERVER_InferenceResponseOutputClassificationLabel (response.c).
 * Each behaviour that imitates the real core says which ("Real core:"). */
#include "fake_core.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Real core: a label file is read whole; each line ('\n' ends one, and a last line without it
 * counts too) is the label of the class of its index, "" where the file has no such line. */
static void
split_lines(fc_class_labels* l, const char* text, size_t len)
{
  size_t start = 0;
  for (size_t i = 0; i <= len; ++i) {
    if (i < len && text[i] != '\n') continue;
    if (i == len && start == len) break; /* nothing after the last '\n' */
    char* line = fc_xmalloc(i - start + 1);
    memcpy(line, text + start, i - start);
    line[i - start] = '\0';
    if (l->n == l->cap) {
      l->cap = l->cap ? l->cap * 2 : 8;
      l->lines = fc_xrealloc(l->lines, l->cap * sizeof(char*));
    }
    l->lines[l->n++] = line;
    start = i + 1;
  }
}

/* Reads one output's label file. Real core: a file whose canonical path leaves the model's
 * directory is UNSUPPORTED; one that cannot be opened is INTERNAL. */
static TRITONSERVER_Error*
load_one(fc_model* m, const fc_io* io, fc_class_labels* l)
{
  char* path = fc_fmt("%s/%s", m->path, io->label_filename);
  char dir[PATH_MAX];
  char file[PATH_MAX];
  if (realpath(m->path, dir) != NULL && realpath(path, file) != NULL) {
    size_t n = strlen(dir);
    if (strncmp(file, dir, n) != 0 || (file[n] != '/' && file[n] != '\0')) {
      TRITONSERVER_Error* err = fc_err(
          TRITONSERVER_ERROR_UNSUPPORTED,
          "label file path '%s' for output '%s' in model '%s' is outside model directory", path,
          io->name, m->name);
      free(path);
      return err;
    }
  }
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    TRITONSERVER_Error* err = fc_err(
        TRITONSERVER_ERROR_INTERNAL, "failed to open text file for read %s: %s", path,
        strerror(errno));
    free(path);
    return err;
  }
  free(path);
  fc_sb sb;
  fc_sb_init(&sb);
  char chunk[4096];
  size_t got;
  while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) fc_sb_putn(&sb, chunk, got);
  fclose(f);
  size_t len = sb.len;
  char* text = fc_sb_take(&sb);
  l->output = fc_strdup(io->name);
  split_lines(l, text, len);
  free(text);
  return NULL;
}

TRITONSERVER_Error*
fc_class_labels_load(fc_model* m)
{
  const fc_config* c = m->cfg;
  for (size_t i = 0; i < c->noutputs; ++i) {
    const fc_io* io = &c->outputs[i];
    if (io->label_filename == NULL || io->label_filename[0] == '\0') continue;
    m->class_labels =
        fc_xrealloc(m->class_labels, (m->nclass_labels + 1) * sizeof(fc_class_labels));
    fc_class_labels* l = &m->class_labels[m->nclass_labels];
    memset(l, 0, sizeof(*l));
    TRITONSERVER_Error* err = load_one(m, io, l);
    if (err != NULL) return err;
    m->nclass_labels++;
  }
  return NULL;
}

void
fc_class_labels_free(fc_model* m)
{
  for (size_t i = 0; i < m->nclass_labels; ++i) {
    fc_class_labels* l = &m->class_labels[i];
    for (size_t j = 0; j < l->n; ++j) free(l->lines[j]);
    free(l->lines);
    free(l->output);
  }
  free(m->class_labels);
  m->class_labels = NULL;
  m->nclass_labels = 0;
}

const char*
fc_class_label(const fc_model* m, const char* output, uint32_t class_index)
{
  for (size_t i = 0; i < m->nclass_labels; ++i) {
    const fc_class_labels* l = &m->class_labels[i];
    if (strcmp(l->output, output) != 0) continue;
    return class_index < l->n && l->lines[class_index][0] != '\0' ? l->lines[class_index] : NULL;
  }
  return NULL;
}
