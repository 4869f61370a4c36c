/* message.c - TRITONSERVER_Message: a serialized JSON document. Real core
 * (TritonServerMessage): the serialized text is made once and
 * TRITONSERVER_MessageSerializeToJson returns it, owned by the message. */
#include "fake_core.h"

#include <stdlib.h>
#include <string.h>

TRITONSERVER_Message*
fc_message_take(char* json)
{
  TRITONSERVER_Message* m = fc_xcalloc(1, sizeof(*m));
  m->json = json;
  m->size = strlen(json);
  fc_count_inc(FC_K_MESSAGE);
  return m;
}
TRITONSERVER_Error*
TRITONSERVER_MessageDelete(TRITONSERVER_Message* message)
{
  if (message != NULL) {
    free(message->json);
    free(message);
    fc_count_dec(FC_K_MESSAGE);
  }
  return NULL;
}

TRITONSERVER_Error*
TRITONSERVER_MessageSerializeToJson(
    TRITONSERVER_Message* message, const char** base, size_t* byte_size)
{
  *base = message->json;
  *byte_size = message->size;
  return NULL;
}
