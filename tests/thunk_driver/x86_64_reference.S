# The reference for ffi/native/x86_64/ring.ts, in GNU assembler syntax (AT&T operand order).
# The test build (tests/thunk_driver/build.mjs) assembles it where `as` is present, and
# tests/thunks.test.ts compares the bytes with the generator's; it also holds the listing of this
# file for where `as` is absent, assembled with the constants below:
#   as --64 -o /tmp/ref.o tests/thunk_driver/x86_64_reference.S && objdump -d /tmp/ref.o
# The generator must produce the same bytes for the same constants (see LISTING_TARGETS there).
        .set RING,         0x0000111122223300
        .set SLOTS,        128
        .set MASK,         1023
        .set EVENTFD,      7
        .set WRITE,        0x00007f000000b000
        .set SCHED_YIELD,  0x00007f000000c000
        .set MALLOC,       0x00007f0000001000
        .set FREE,         0x00007f0000002000
        .set ERROR_NEW,    0x00007f0000003000
        .set SET_TYPE,     0x00007f0000004000
        .set SET_TYPE_ID,  0x00007f0000005000
        .set JS_ALLOC,     0x00007f0000006000
        .set JS_RELEASE,   0x00007f0000007000
        .set JS_QUERY,     0x00007f0000008000
        .set JS_ATTRS,     0x00007f0000009000
        .set INTERNAL,     1

        .text
response_complete:
        endbr64
        mov     $1, %r8d
        jmp     push
request_release:
        endbr64
        mov     $2, %r8d
push:
        mov     ring_at(%rip), %r9
        mov     $1, %eax
        lock xadd %rax, (%r9)
        mov     %eax, %r10d
        and     $MASK, %r10d
        shl     $5, %r10
        lea     SLOTS(%r9), %r11
        add     %r11, %r10
wait:
        cmp     %eax, (%r10)
        je      claimed
        push    %rax                            # ring full: sched_yield(), the registers in use kept
        push    %rdi
        push    %rsi
        push    %rdx
        push    %r8
        push    %r9
        push    %r10
        call    *sched_yield_at(%rip)
        pop     %r10
        pop     %r9
        pop     %r8
        pop     %rdx
        pop     %rsi
        pop     %rdi
        pop     %rax
        jmp     wait
claimed:
        mov     %rdi, 16(%r10)
        mov     %rdx, 24(%r10)
        mov     %esi, 8(%r10)
        mov     %r8d, 4(%r10)
        inc     %eax
        xchg    %eax, (%r10)
        cmpl    $0, 64(%r9)
        jne     wake
        ret
wake:
        xor     %eax, %eax
        xchg    %eax, 64(%r9)
        test    %eax, %eax
        je      woken
        push    $1                              # write(eventfd, &one, 8)
        mov     $EVENTFD, %edi
        mov     %rsp, %rsi
        mov     $8, %edx
        call    *write_at(%rip)
        pop     %rax
woken:
        ret

alloc:
        endbr64
        test    %r9, %r9
        je      alloc_cpu
        jmp     *js_alloc_at(%rip)
alloc_cpu:
        push    %rbx
        mov     %rdx, %rdi
        test    %rdi, %rdi
        jne     alloc_sized
        mov     $1, %edi
alloc_sized:
        call    *malloc_at(%rip)
        test    %rax, %rax
        je      alloc_failed
        mov     16(%rsp), %rcx
        mov     %rax, (%rcx)
        mov     24(%rsp), %rcx
        movq    $1, (%rcx)
        mov     32(%rsp), %rcx
        movl    $0, (%rcx)
        mov     40(%rsp), %rcx
        movq    $0, (%rcx)
        xor     %eax, %eax
        pop     %rbx
        ret
alloc_failed:
        mov     $INTERNAL, %edi
        lea     message(%rip), %rsi
        call    *error_new_at(%rip)
        pop     %rbx
        ret

release:
        endbr64
        cmp     $1, %rdx
        je      release_cpu
        jmp     *js_release_at(%rip)
release_cpu:
        push    %rbx
        mov     %rsi, %rdi
        call    *free_at(%rip)
        xor     %eax, %eax
        pop     %rbx
        ret

query:
        endbr64
        test    %rsi, %rsi
        je      query_cpu
        jmp     *js_query_at(%rip)
query_cpu:
        movl    $0, (%r8)
        movq    $0, (%r9)
        xor     %eax, %eax
        ret

buffer_attributes:
        endbr64
        cmp     $1, %r8
        je      attributes_cpu
        jmp     *js_attrs_at(%rip)
attributes_cpu:
        push    %rbx
        mov     %rdx, %rbx
        mov     %rdx, %rdi
        xor     %esi, %esi
        call    *set_type_at(%rip)
        test    %rax, %rax
        jne     attributes_done
        mov     %rbx, %rdi
        xor     %esi, %esi
        call    *set_type_id_at(%rip)
attributes_done:
        pop     %rbx
        ret

message:
        .asciz  "malloc of an output buffer failed"

        # the address table: every address the code reads, calls or jumps to, in the order first
        # named, read RIP-relative
        .balign 8, 0xcc
ring_at:                .quad   RING
sched_yield_at:         .quad   SCHED_YIELD
write_at:               .quad   WRITE
js_alloc_at:            .quad   JS_ALLOC
malloc_at:              .quad   MALLOC
error_new_at:           .quad   ERROR_NEW
js_release_at:          .quad   JS_RELEASE
free_at:                .quad   FREE
js_query_at:            .quad   JS_QUERY
js_attrs_at:            .quad   JS_ATTRS
set_type_at:            .quad   SET_TYPE
set_type_id_at:         .quad   SET_TYPE_ID
