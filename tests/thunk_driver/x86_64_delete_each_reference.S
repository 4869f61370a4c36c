# The reference for ffi/native/x86_64/delete_each.ts (the batch deleter's comparator), in GNU
# assembler syntax (AT&T operand order). The test build (tests/thunk_driver/build.mjs) assembles
# it where `as` is present, and tests/native_deletes.test.ts compares the bytes with the
# generator's.
        .text
delete_each:
        endbr64
        push    %rbx
        mov     (%rsi), %rax
        mov     %eax, %ecx
        and     $1, %ecx
        jne     request
        mov     (%rdi), %rcx
        jmp     call
request:
        mov     8(%rdi), %rcx
        and     $-2, %rax
call:
        mov     %rax, %rdi
        call    *%rcx
        mov     $1, %eax
        pop     %rbx
        ret
