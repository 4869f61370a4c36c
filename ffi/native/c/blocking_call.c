/* blocking_call.c - runs one C call that may block on a thread of its own, for Bun.
 *
 * Bun calls C functions on the JS thread, so a call that waits (TRITONSERVER_ServerNew loading
 * models, TRITONSERVER_ServerStop unloading them) would stop the event loop for as long. Here the
 * call runs on a new detached thread; when it returns, its result is stored and `done(id)` is
 * called: a threadsafe JSCallback, which Bun posts to the JS thread without making this thread
 * wait. Compiled at run time by Bun's cc() (ffi/bun_blocking_calls.ts).
 *
 * Every function called so takes at most six arguments, each an integer or a pointer, and
 * returns an integer or a pointer: on x86-64 and AArch64 such arguments travel in the first six
 * integer registers and the result in the first, so one call through a six-argument type serves
 * them all (arguments past the callee's count are ignored). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

typedef uint64_t (*call6_t)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
typedef void (*done_t)(int32_t id);

struct blocking_call {
  call6_t fn;
  uint64_t args[6];
  uint64_t* result;
  int32_t id;
  done_t done;
};

static void*
run(void* p)
{
  struct blocking_call* c = p;
  *c->result = c->fn(c->args[0], c->args[1], c->args[2], c->args[3], c->args[4], c->args[5]);
  done_t done = c->done;
  int32_t id = c->id;
  free(c);
  done(id);
  return NULL;
}

/* Starts `fn(args[0..5])` on a new thread; the result goes to `*result`, then `done(id)` runs.
 * Returns 0, or the error number of malloc/pthread_create (nothing was started then). */
int32_t
tritonffi_blocking_call(void* fn, const uint64_t* args, uint64_t* result, int32_t id, void* done)
{
  struct blocking_call* c = malloc(sizeof *c);
  if (c == NULL) {
    return 12; /* ENOMEM */
  }
  c->fn = (call6_t)fn;
  for (int i = 0; i < 6; i++) {
    c->args[i] = args[i];
  }
  c->result = result;
  c->id = id;
  c->done = (done_t)done;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  int rc = pthread_create(&thread, &attr, run, c);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    free(c);
  }
  return rc;
}
