/* pbtxt.c - a reader for the protobuf text format used by config.pbtxt.
 *
 * Produces a generic tree: every field becomes a node carrying its name;
 * repeated fields (written several times or as "[a, b]") become several
 * sibling nodes with the same name. Nested messages may use {} or <>.
 * Comments (#) and unknown fields are kept/ignored by the consumer.
 * The real core reads config.pbtxt with protobuf's text format parser; this
 * reads the subset the model configurations of the tests use.
 */
#include "fake_core.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char* s;
  size_t len;
  size_t pos;
  int line;
  char* err;
} pb_reader;

static void
pb_fail(pb_reader* r, const char* what)
{
  if (r->err == NULL) {
    r->err = fc_fmt("line %d: %s", r->line, what);
  }
}

static void
pb_skip(pb_reader* r)
{
  while (r->pos < r->len) {
    char c = r->s[r->pos];
    if (c == '\n') {
      r->line++;
      r->pos++;
    } else if (isspace((unsigned char)c)) {
      r->pos++;
    } else if (c == '#') {
      while (r->pos < r->len && r->s[r->pos] != '\n') {
        r->pos++;
      }
    } else {
      break;
    }
  }
}

static int
pb_peek(pb_reader* r)
{
  pb_skip(r);
  return r->pos < r->len ? (unsigned char)r->s[r->pos] : -1;
}

static bool
is_ident_start(int c)
{
  return isalpha(c) || c == '_';
}

static bool
is_ident_char(int c)
{
  return isalnum(c) || c == '_' || c == '.';
}

/* Reads an identifier or a number-ish token (letters, digits, . + - _). */
static char*
pb_read_word(pb_reader* r)
{
  size_t start = r->pos;
  if (r->pos < r->len && (r->s[r->pos] == '-' || r->s[r->pos] == '+')) {
    r->pos++;
  }
  while (r->pos < r->len) {
    char c = r->s[r->pos];
    if (isalnum((unsigned char)c) || c == '_' || c == '.') {
      r->pos++;
    } else if ((c == '-' || c == '+') && r->pos > start &&
               (r->s[r->pos - 1] == 'e' || r->s[r->pos - 1] == 'E')) {
      r->pos++; /* exponent sign */
    } else {
      break;
    }
  }
  if (r->pos == start) {
    return NULL;
  }
  return fc_strndup(r->s + start, r->pos - start);
}

static int
hexval(int c)
{
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

/* One quoted literal appended to sb. */
static bool
pb_read_string(pb_reader* r, fc_sb* sb)
{
  char q = r->s[r->pos++];
  while (r->pos < r->len) {
    char c = r->s[r->pos++];
    if (c == q) {
      return true;
    }
    if (c == '\n') {
      pb_fail(r, "newline in string literal");
      return false;
    }
    if (c != '\\') {
      fc_sb_putc(sb, c);
      continue;
    }
    if (r->pos >= r->len) {
      break;
    }
    char e = r->s[r->pos++];
    switch (e) {
      case 'n':
        fc_sb_putc(sb, '\n');
        break;
      case 't':
        fc_sb_putc(sb, '\t');
        break;
      case 'r':
        fc_sb_putc(sb, '\r');
        break;
      case 'a':
        fc_sb_putc(sb, '\a');
        break;
      case 'b':
        fc_sb_putc(sb, '\b');
        break;
      case 'f':
        fc_sb_putc(sb, '\f');
        break;
      case 'v':
        fc_sb_putc(sb, '\v');
        break;
      case 'x': {
        int v = 0, digits = 0, h;
        while (digits < 2 && r->pos < r->len &&
               (h = hexval((unsigned char)r->s[r->pos])) >= 0) {
          v = v * 16 + h;
          r->pos++;
          digits++;
        }
        fc_sb_putc(sb, (char)v);
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          int v = e - '0', digits = 1;
          while (digits < 3 && r->pos < r->len && r->s[r->pos] >= '0' &&
                 r->s[r->pos] <= '7') {
            v = v * 8 + (r->s[r->pos++] - '0');
            digits++;
          }
          fc_sb_putc(sb, (char)v);
        } else {
          fc_sb_putc(sb, e); /* \" \' \\ \? */
        }
        break;
    }
  }
  pb_fail(r, "unterminated string literal");
  return false;
}

static bool pb_read_message(pb_reader* r, fc_node* msg, int close);

/* Reads one value (scalar or message) for field 'key' into parent. */
static bool
pb_read_value(pb_reader* r, fc_node* parent, const char* key)
{
  int c = pb_peek(r);
  if (c == '{' || c == '<') {
    r->pos++;
    fc_node* m = fc_node_new(key, strlen(key), FC_NODE_MESSAGE);
    fc_node_append(parent, m);
    return pb_read_message(r, m, c == '{' ? '}' : '>');
  }
  fc_node* n = fc_node_new(key, strlen(key), FC_NODE_SCALAR);
  fc_node_append(parent, n);
  if (c == '"' || c == '\'') {
    fc_sb sb;
    fc_sb_init(&sb);
    /* Adjacent literals concatenate. */
    while (c == '"' || c == '\'') {
      if (!pb_read_string(r, &sb)) {
        fc_sb_free(&sb);
        return false;
      }
      c = pb_peek(r);
    }
    n->text = fc_sb_take(&sb);
    n->quoted = true;
    return true;
  }
  if (c == '-' || c == '+' || isalnum(c) || c == '.' || c == '_') {
    n->text = pb_read_word(r);
    if (n->text == NULL) {
      pb_fail(r, "expected a value");
      return false;
    }
    return true;
  }
  pb_fail(r, "expected a value");
  return false;
}

static bool
pb_read_message(pb_reader* r, fc_node* msg, int close)
{
  for (;;) {
    int c = pb_peek(r);
    if (c == -1) {
      if (close != -1) {
        pb_fail(r, "unexpected end of input, missing closing bracket");
        return false;
      }
      return true;
    }
    if (c == close) {
      r->pos++;
      return true;
    }
    char* key = NULL;
    if (c == '[') {
      /* extension or Any type URL: [some.name] */
      size_t start = ++r->pos;
      while (r->pos < r->len && r->s[r->pos] != ']') {
        r->pos++;
      }
      if (r->pos >= r->len) {
        pb_fail(r, "unterminated extension name");
        return false;
      }
      key = fc_strndup(r->s + start, r->pos - start);
      r->pos++;
    } else if (is_ident_start(c)) {
      size_t start = r->pos;
      while (r->pos < r->len && is_ident_char((unsigned char)r->s[r->pos])) {
        r->pos++;
      }
      key = fc_strndup(r->s + start, r->pos - start);
    } else {
      pb_fail(r, "expected a field name");
      return false;
    }

    bool ok = true;
    bool colon = false;
    if (pb_peek(r) == ':') {
      r->pos++;
      colon = true;
    }
    c = pb_peek(r);
    if (c == '[') {
      r->pos++;
      if (pb_peek(r) == ']') {
        r->pos++;
      } else {
        for (;;) {
          if (!pb_read_value(r, msg, key)) {
            ok = false;
            break;
          }
          c = pb_peek(r);
          if (c == ',') {
            r->pos++;
            continue;
          }
          if (c == ']') {
            r->pos++;
            break;
          }
          pb_fail(r, "expected ',' or ']' in list");
          ok = false;
          break;
        }
      }
    } else if (!colon && c != '{' && c != '<') {
      pb_fail(r, "expected ':' after field name");
      ok = false;
    } else {
      ok = pb_read_value(r, msg, key);
    }
    free(key);
    if (!ok) {
      return false;
    }
    c = pb_peek(r);
    if (c == ';' || c == ',') {
      r->pos++;
    }
  }
}

fc_node*
fc_pbtxt_parse(const char* text, size_t len, char** err)
{
  pb_reader r = {text, len, 0, 1, NULL};
  fc_node* root = fc_node_new("", 0, FC_NODE_MESSAGE);
  if (!pb_read_message(&r, root, -1)) {
    fc_node_free(root);
    if (err) {
      *err = r.err ? r.err : fc_strdup("parse error");
    } else {
      free(r.err);
    }
    return NULL;
  }
  free(r.err);
  return root;
}
