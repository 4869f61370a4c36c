/**
 * The completion ring's producers for Bun, as C compiled at run time by `cc()` (TinyCC): the same
 * contract as the x86-64 thunks (`x86_64.ts`, layout in `ring_layout.ts`), but the wake-up is a
 * threadsafe `JSCallback`, which Bun posts to the JS thread without making the producer wait (Bun
 * has no FFI call that blocks off the JS thread, so no eventfd read).
 *
 * TinyCC has no `__atomic` builtins without its runtime library, so the two atomic instructions
 * are inline assembly: x86-64 only. Elsewhere compilation fails and the binding falls back to JS
 * callbacks.
 *
 * @module
 */
import { RingLayout as L } from "../ring_layout.ts";
import type { FfiRuntime, Ptr } from "../types.ts";

/** The C source. `tritonffi_ring_configure` must run before Triton calls the pushes. */
export const BUN_RING_C_SOURCE = `
typedef unsigned long long u64;
typedef unsigned int u32;
int sched_yield(void);

#if !defined(__x86_64__)
#error "the native completion ring needs x86-64 inline assembly under TinyCC"
#endif

struct slot { volatile u32 seq; u32 kind; u32 flags; u32 pad; void* object; void* userp; };
static char* ring;
static u64 mask;
static void (*wake)(void);

void tritonffi_ring_configure(void* r, u32 capacity, void* w) {
  ring = (char*)r;
  mask = capacity - 1;
  wake = (void (*)(void))w;
}

static void push(u32 kind, void* object, u32 flags, void* userp) {
  u64 pos = 1;
  __asm__ volatile("lock xaddq %0, %1" : "+r"(pos), "+m"(*(u64*)(ring + ${L.TAIL})) :: "memory");
  struct slot* s = (struct slot*)(ring + ${L.SLOTS} + (pos & mask) * ${L.SLOT_SIZE});
  while (s->seq != (u32)pos) sched_yield(); /* ring full: wait for the consumer */
  s->object = object;
  s->userp = userp;
  s->flags = flags;
  s->kind = kind;
  u32 seq = (u32)pos + 1; /* publish; xchg is a full barrier */
  __asm__ volatile("xchgl %0, %1" : "+r"(seq), "+m"(s->seq) :: "memory");
  volatile u32* sleeping = (volatile u32*)(ring + ${L.SLEEPING});
  if (*sleeping) {
    u32 was = 0;
    __asm__ volatile("xchgl %0, %1" : "+r"(was), "+m"(*sleeping) :: "memory");
    if (was) wake();
  }
}

void tritonffi_response_complete(void* response, u32 flags, void* userp) { push(1, response, flags, userp); }
void tritonffi_request_release(void* request, u32 flags, void* userp) { push(2, request, flags, userp); }
`;

const completionFn = {
  parameters: ["ptr", "u32", "ptr"],
  result: "void",
} as const;

/** The C functions of {@link BUN_RING_C_SOURCE}. */
export const bunRingSymbols = {
  tritonffi_ring_configure: { parameters: ["ptr", "u32", "ptr"], result: "void" },
  tritonffi_response_complete: completionFn,
  tritonffi_request_release: completionFn,
} as const;

/**
 * Compiles the producers for the ring at `ring` (one compilation per ring: the C keeps it in
 * statics) and returns their function pointers.
 * @param wake a C function pointer the producer calls when the consumer sleeps.
 * @throws {Error} where `cc()` is absent or the C does not compile.
 */
export function compileBunRing(
  ffi: FfiRuntime,
  ring: Ptr,
  capacity: number,
  wake: Ptr,
): { responseComplete: Ptr; requestRelease: Ptr } {
  if (!ffi.compile) throw new Error(`${ffi.name} has no run-time C compiler`);
  const c = ffi.compile(BUN_RING_C_SOURCE, bunRingSymbols);
  c.call.tritonffi_ring_configure(ring, capacity, wake);
  return {
    responseComplete: c.pointers.tritonffi_response_complete,
    requestRelease: c.pointers.tritonffi_request_release,
  };
}
