/* tree.c - the small generic tree shared by the pbtxt and JSON readers. (The fake core's own:
 * nothing here imitates the real core.) */
#include "fake_core.h"

#include <stdlib.h>
#include <string.h>

fc_node*
fc_node_new(const char* key, size_t keylen, fc_node_kind kind)
{
  fc_node* n = fc_xcalloc(1, sizeof(*n));
  n->key = fc_strndup(key ? key : "", key ? keylen : 0);
  n->kind = kind;
  return n;
}

void
fc_node_append(fc_node* parent, fc_node* child)
{
  fc_node** slot = &parent->child;
  while (*slot != NULL) {
    slot = &(*slot)->next;
  }
  *slot = child;
}

void
fc_node_free(fc_node* n)
{
  while (n != NULL) {
    fc_node* next = n->next;
    fc_node_free(n->child);
    free(n->key);
    free(n->text);
    free(n);
    n = next;
  }
}

const fc_node*
fc_node_find(const fc_node* msg, const char* key)
{
  if (msg == NULL) {
    return NULL;
  }
  for (const fc_node* c = msg->child; c != NULL; c = c->next) {
    if (strcmp(c->key, key) == 0) {
      return c;
    }
  }
  return NULL;
}
