# The reference for ffi/native/x86_64/submit.ts (the request submitter), in GNU assembler syntax
# (AT&T operand order). The test build (tests/thunk_driver/build.mjs) assembles it where `as` is
# present, and tests/request_submitter.test.ts compares the bytes with the generator's, made for
# the layout of ffi/native/request_record.ts. `{disp32}` marks the jumps the generator encodes with a
# 32-bit displacement (jcc32).
        # ffi/native/request_record.ts
        .set SERVER, 64
        .set MODEL, 72
        .set VERSION, 80
        .set ALLOCATOR, 88
        .set ALLOCATOR_USERP, 96
        .set RESPONSE_FN, 104
        .set RELEASE_FN, 112
        .set USERP, 120
        .set INPUT_COUNT, 128
        .set REQUEST, 136
        .set ERROR, 144
        .set INPUTS, 192
        .set INPUT_SIZE, 64
        .set I_NAME, 0
        .set I_DATATYPE, 8
        .set I_SHAPE, 16
        .set I_DIM_COUNT, 24
        .set I_BASE, 32
        .set I_BYTE_SIZE, 40
        .set I_MEMORY_TYPE, 48
        .set I_MEMORY_TYPE_ID, 56

        # The generator's call(index): Triton's function `index` of the record's table, checked.
        .macro CALL_CHECKED index
        mov     8*\index(%rbx), %rax
        call    *%rax
        test    %rax, %rax
        {disp32} jne failed
        .endm

        .text
submit:
        endbr64
        push    %rbx
        push    %r12
        push    %r13
        mov     %rdi, %rbx
        movq    $0, REQUEST(%rbx)
        movq    $0, ERROR(%rbx)
        # RequestNew(&request, server, model, version)
        lea     REQUEST(%rbx), %rdi
        mov     SERVER(%rbx), %rsi
        mov     MODEL(%rbx), %rdx
        mov     VERSION(%rbx), %rcx
        CALL_CHECKED 0
        lea     INPUTS(%rbx), %r12
        mov     INPUT_COUNT(%rbx), %r13
inputs_loop:
        test    %r13, %r13
        je      inputs_done
        # AddInput(request, name, dtype, shape, dims)
        mov     REQUEST(%rbx), %rdi
        mov     I_NAME(%r12), %rsi
        mov     I_DATATYPE(%r12), %rdx
        mov     I_SHAPE(%r12), %rcx
        mov     I_DIM_COUNT(%r12), %r8
        CALL_CHECKED 1
        mov     I_BYTE_SIZE(%r12), %rcx
        test    %rcx, %rcx
        je      inputs_next
        # AppendInputData(request, name, base, size, memory type, memory type id)
        mov     REQUEST(%rbx), %rdi
        mov     I_NAME(%r12), %rsi
        mov     I_BASE(%r12), %rdx
        mov     I_MEMORY_TYPE(%r12), %r8
        mov     I_MEMORY_TYPE_ID(%r12), %r9
        CALL_CHECKED 2
inputs_next:
        add     $INPUT_SIZE, %r12
        sub     $1, %r13
        jmp     inputs_loop
inputs_done:
        # SetReleaseCallback(request, release, userp)
        mov     REQUEST(%rbx), %rdi
        mov     RELEASE_FN(%rbx), %rsi
        mov     USERP(%rbx), %rdx
        CALL_CHECKED 3
        # SetResponseCallback(request, allocator, allocator userp, response, userp)
        mov     REQUEST(%rbx), %rdi
        mov     ALLOCATOR(%rbx), %rsi
        mov     ALLOCATOR_USERP(%rbx), %rdx
        mov     RESPONSE_FN(%rbx), %rcx
        mov     USERP(%rbx), %r8
        CALL_CHECKED 4
        # ServerInferAsync(server, request, NULL)
        mov     SERVER(%rbx), %rdi
        mov     REQUEST(%rbx), %rsi
        xor     %edx, %edx
        CALL_CHECKED 5
        xor     %eax, %eax
        jmp     exit
failed:
        mov     %rax, ERROR(%rbx)
        mov     $1, %eax
exit:
        pop     %r13
        pop     %r12
        pop     %rbx
        ret
