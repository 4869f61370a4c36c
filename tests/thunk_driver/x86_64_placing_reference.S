# The reference for ffi/native/x86_64/placing.ts (the placing allocator's alloc and release), in
# GNU assembler syntax (AT&T operand order). The test build (tests/thunk_driver/build.mjs)
# assembles it where `as` is present, and tests/thunks.test.ts compares the bytes with the
# generator's, made for the addresses below (PLACING_TARGETS there), the table layout of
# ffi/output_placement.ts and the values of BufferUserp.REGION (ffi/allocator.ts) and
# MemoryType.CPU (ffi/enums.ts). The generator encodes every jump with an 8-bit displacement
# (jcc, jmp), the form the assembler picks for these, so none is marked `{disp32}`. The addresses
# it jumps to are read from the table after the code.
        .set JS_ALLOC,      0x00007f0000021000
        .set RELEASE,       0x00007f0000022000
        # ffi/output_placement.ts: count, policy, then name, address, byteSize per entry
        .set HEADER_BYTES,  16
        .set ENTRY_BYTES,   24
        .set E_NAME,        0
        .set E_ADDRESS,     8
        .set E_BYTE_SIZE,   16
        # ffi/allocator.ts, ffi/enums.ts
        .set REGION,        0xff
        .set CPU,           0
        # alloc's stack arguments, at entry and again once the three pushes are popped
        .set BUFFER,        8
        .set BUFFER_USERP,  16
        .set ACTUAL_TYPE,   24
        .set ACTUAL_TYPE_ID, 32

        .text
        # TRITONSERVER_Error* alloc(allocator %rdi, name %rsi, byte_size %rdx, memory_type %ecx,
        #   memory_type_id %r8, userp (the table) %r9, buffer, buffer_userp, actual_type,
        #   actual_type_id on the stack)
alloc:
        endbr64
        test    %rsi, %rsi                      # no name: JS
        je      alloc_js
        push    %rdi                            # kept for the jump to JS
        push    %rcx
        push    %r8
        mov     (%r9), %r10                     # entries left
        lea     HEADER_BYTES(%r9), %r11         # the first entry
alloc_next:
        test    %r10, %r10
        je      alloc_restore                   # not placed: JS
        mov     E_NAME(%r11), %rax              # the entry's name
        mov     %rsi, %rdi                      # the tensor's name
alloc_compare:
        movzbl  (%rax), %ecx
        movzbl  (%rdi), %r8d
        cmp     %r8d, %ecx
        jne     alloc_skip
        test    %ecx, %ecx                      # both ended: the same name
        je      alloc_found
        add     $1, %rax
        add     $1, %rdi
        jmp     alloc_compare
alloc_skip:
        add     $ENTRY_BYTES, %r11
        sub     $1, %r10
        jmp     alloc_next
alloc_found:
        mov     E_BYTE_SIZE(%r11), %rax         # the part's bytes
        cmp     %rax, %rdx
        ja      alloc_restore                   # larger: JS gives the error
        mov     E_ADDRESS(%r11), %rax           # the part's address
        pop     %r8
        pop     %rcx
        pop     %rdi
        mov     BUFFER(%rsp), %r10
        mov     %rax, (%r10)
        mov     BUFFER_USERP(%rsp), %r10
        movq    $REGION, (%r10)
        mov     ACTUAL_TYPE(%rsp), %r10
        movl    $CPU, (%r10)
        mov     ACTUAL_TYPE_ID(%rsp), %r10
        movq    $0, (%r10)
        xor     %eax, %eax                      # no error
        ret
alloc_restore:
        pop     %r8
        pop     %rcx
        pop     %rdi
alloc_js:
        jmp     *js_alloc_at(%rip)              # arguments untouched

        # TRITONSERVER_Error* release(allocator %rdi, buffer %rsi, buffer_userp %rdx,
        #   byte_size %rcx, memory_type %r8d, memory_type_id %r9)
release:
        endbr64
        cmp     $REGION, %rdx                   # a placed output?
        jne     release_other
        xor     %eax, %eax                      # nothing to free
        ret
release_other:
        jmp     *release_at(%rip)

        # the address table: every address the code jumps to, read RIP-relative
        .balign 8, 0xcc
js_alloc_at:
        .quad   JS_ALLOC
release_at:
        .quad   RELEASE
