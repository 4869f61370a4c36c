/* json.c - JSON string escaping for the writers, and a small JSON reader
 * producing the same tree as the pbtxt reader (used for config overrides,
 * which the real core reads with protobuf's JSON parser).
 */
#include "fake_core.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void
fc_json_str(fc_sb* sb, const char* s)
{
  fc_sb_putc(sb, '"');
  for (const unsigned char* p = (const unsigned char*)s; *p; ++p) {
    switch (*p) {
      case '"':
        fc_sb_puts(sb, "\\\"");
        break;
      case '\\':
        fc_sb_puts(sb, "\\\\");
        break;
      case '\n':
        fc_sb_puts(sb, "\\n");
        break;
      case '\r':
        fc_sb_puts(sb, "\\r");
        break;
      case '\t':
        fc_sb_puts(sb, "\\t");
        break;
      case '\b':
        fc_sb_puts(sb, "\\b");
        break;
      case '\f':
        fc_sb_puts(sb, "\\f");
        break;
      default:
        if (*p < 0x20) {
          fc_sb_printf(sb, "\\u%04x", *p);
        } else {
          fc_sb_putc(sb, (char)*p);
        }
    }
  }
  fc_sb_putc(sb, '"');
}

typedef struct {
  const char* s;
  size_t len;
  size_t pos;
  char* err;
  int depth;
} js_reader;

static void
js_fail(js_reader* r, const char* what)
{
  if (r->err == NULL) {
    r->err = fc_fmt("offset %zu: %s", r->pos, what);
  }
}

static int
js_peek(js_reader* r)
{
  while (r->pos < r->len && isspace((unsigned char)r->s[r->pos])) {
    r->pos++;
  }
  return r->pos < r->len ? (unsigned char)r->s[r->pos] : -1;
}

static void
put_utf8(fc_sb* sb, unsigned cp)
{
  if (cp < 0x80) {
    fc_sb_putc(sb, (char)cp);
  } else if (cp < 0x800) {
    fc_sb_putc(sb, (char)(0xC0 | (cp >> 6)));
    fc_sb_putc(sb, (char)(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    fc_sb_putc(sb, (char)(0xE0 | (cp >> 12)));
    fc_sb_putc(sb, (char)(0x80 | ((cp >> 6) & 0x3F)));
    fc_sb_putc(sb, (char)(0x80 | (cp & 0x3F)));
  } else {
    fc_sb_putc(sb, (char)(0xF0 | (cp >> 18)));
    fc_sb_putc(sb, (char)(0x80 | ((cp >> 12) & 0x3F)));
    fc_sb_putc(sb, (char)(0x80 | ((cp >> 6) & 0x3F)));
    fc_sb_putc(sb, (char)(0x80 | (cp & 0x3F)));
  }
}

static bool
js_hex4(js_reader* r, unsigned* out)
{
  if (r->pos + 4 > r->len) {
    return false;
  }
  unsigned v = 0;
  for (int i = 0; i < 4; ++i) {
    char c = r->s[r->pos++];
    v <<= 4;
    if (c >= '0' && c <= '9') {
      v |= (unsigned)(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      v |= (unsigned)(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      v |= (unsigned)(c - 'A' + 10);
    } else {
      return false;
    }
  }
  *out = v;
  return true;
}

static char*
js_string(js_reader* r)
{
  fc_sb sb;
  fc_sb_init(&sb);
  r->pos++; /* opening quote */
  while (r->pos < r->len) {
    char c = r->s[r->pos++];
    if (c == '"') {
      return fc_sb_take(&sb);
    }
    if (c != '\\') {
      fc_sb_putc(&sb, c);
      continue;
    }
    if (r->pos >= r->len) {
      break;
    }
    char e = r->s[r->pos++];
    unsigned cp;
    switch (e) {
      case 'n':
        fc_sb_putc(&sb, '\n');
        break;
      case 't':
        fc_sb_putc(&sb, '\t');
        break;
      case 'r':
        fc_sb_putc(&sb, '\r');
        break;
      case 'b':
        fc_sb_putc(&sb, '\b');
        break;
      case 'f':
        fc_sb_putc(&sb, '\f');
        break;
      case 'u':
        if (!js_hex4(r, &cp)) {
          js_fail(r, "bad \\u escape");
          fc_sb_free(&sb);
          return NULL;
        }
        if (cp >= 0xD800 && cp < 0xDC00 && r->pos + 6 <= r->len &&
            r->s[r->pos] == '\\' && r->s[r->pos + 1] == 'u') {
          unsigned lo;
          r->pos += 2;
          if (js_hex4(r, &lo) && lo >= 0xDC00 && lo < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
        }
        put_utf8(&sb, cp);
        break;
      default:
        fc_sb_putc(&sb, e);
    }
  }
  js_fail(r, "unterminated string");
  fc_sb_free(&sb);
  return NULL;
}

static bool js_value(js_reader* r, fc_node* parent, const char* key);

static bool
js_object(js_reader* r, fc_node* msg)
{
  r->pos++; /* { */
  if (js_peek(r) == '}') {
    r->pos++;
    return true;
  }
  for (;;) {
    if (js_peek(r) != '"') {
      js_fail(r, "expected a member name");
      return false;
    }
    char* key = js_string(r);
    if (key == NULL) {
      return false;
    }
    if (js_peek(r) != ':') {
      free(key);
      js_fail(r, "expected ':'");
      return false;
    }
    r->pos++;
    bool ok = js_value(r, msg, key);
    free(key);
    if (!ok) {
      return false;
    }
    int c = js_peek(r);
    if (c == ',') {
      r->pos++;
      continue;
    }
    if (c == '}') {
      r->pos++;
      return true;
    }
    js_fail(r, "expected ',' or '}'");
    return false;
  }
}

static bool
js_value(js_reader* r, fc_node* parent, const char* key)
{
  if (++r->depth > 64) {
    js_fail(r, "nesting too deep");
    return false;
  }
  bool ok = true;
  int c = js_peek(r);
  if (c == '{') {
    fc_node* m = fc_node_new(key, strlen(key), FC_NODE_MESSAGE);
    fc_node_append(parent, m);
    ok = js_object(r, m);
  } else if (c == '[') {
    /* Each element becomes a repeated field with the same key. */
    r->pos++;
    if (js_peek(r) == ']') {
      r->pos++;
    } else {
      for (;;) {
        if (!js_value(r, parent, key)) {
          ok = false;
          break;
        }
        c = js_peek(r);
        if (c == ',') {
          r->pos++;
          continue;
        }
        if (c == ']') {
          r->pos++;
          break;
        }
        js_fail(r, "expected ',' or ']'");
        ok = false;
        break;
      }
    }
  } else if (c == '"') {
    char* s = js_string(r);
    if (s == NULL) {
      ok = false;
    } else {
      fc_node* n = fc_node_new(key, strlen(key), FC_NODE_SCALAR);
      n->text = s;
      n->quoted = true;
      fc_node_append(parent, n);
    }
  } else if (c == '-' || isalnum(c)) {
    size_t start = r->pos;
    while (r->pos < r->len &&
           (isalnum((unsigned char)r->s[r->pos]) || r->s[r->pos] == '-' ||
            r->s[r->pos] == '+' || r->s[r->pos] == '.')) {
      r->pos++;
    }
    char* word = fc_strndup(r->s + start, r->pos - start);
    if (strcmp(word, "null") == 0) {
      free(word); /* absent field */
    } else {
      fc_node* n = fc_node_new(key, strlen(key), FC_NODE_SCALAR);
      n->text = word;
      fc_node_append(parent, n);
    }
  } else {
    js_fail(r, "expected a value");
    ok = false;
  }
  r->depth--;
  return ok;
}

fc_node*
fc_json_parse(const char* text, size_t len, char** err)
{
  js_reader r = {text, len, 0, NULL, 0};
  fc_node* root = fc_node_new("", 0, FC_NODE_MESSAGE);
  bool ok = false;
  if (js_peek(&r) != '{') {
    js_fail(&r, "expected a JSON object");
  } else if (js_object(&r, root)) {
    if (js_peek(&r) != -1) {
      js_fail(&r, "trailing characters after the JSON object");
    } else {
      ok = true;
    }
  }
  if (!ok) {
    fc_node_free(root);
    if (err) {
      *err = r.err ? r.err : fc_strdup("parse error");
    } else {
      free(r.err);
    }
    return NULL;
  }
  return root;
}
