# The reference for ffi/native/x86_64/reader.ts (the response reader), in GNU assembler syntax
# (AT&T operand order). The test build (tests/thunk_driver/build.mjs) assembles it where `as` is
# present, and tests/response_reader.test.ts compares the bytes with the generator's, made for
# the addresses below (READER_TARGETS there) and the layout of ffi/native/response_record.ts. `{disp32}`
# marks the jumps the generator encodes with a 32-bit displacement (jcc32, jmp32).
        .set RESPONSE_ERROR,   0x00007f0000011000
        .set OUTPUT_COUNT_FN,  0x00007f0000012000
        .set OUTPUT_FN,        0x00007f0000013000
        .set MODEL_FN,         0x00007f0000014000
        .set ID_FN,            0x00007f0000015000
        .set PARAM_COUNT_FN,   0x00007f0000016000
        .set PARAM_FN,         0x00007f0000017000
        .set MEMCPY,           0x00007f0000018000
        .set MEMCCPY,          0x00007f0000019000
        # ffi/native/response_record.ts
        .set CALL_ERROR, 0
        .set RESP_ERROR, 8
        .set OUTPUT_COUNT, 16
        .set PARAM_COUNT, 24
        .set MODEL_NAME, 32
        .set MODEL_VERSION, 40
        .set ID, 48
        .set MODEL_COPY, 64
        .set ID_COPY, 192
        .set OUTPUTS, 320
        .set OUTPUT_SIZE, 208
        .set PARAMS, 3648
        .set PARAM_SIZE, 208
        .set DATA, 8192
        .set STRING_CAP, 128
        .set NAME_CAP, 64
        .set VALUE_CAP, 112
        .set RECORD_BYTES, 65536
        .set MAX_OUTPUTS, 16
        .set MAX_PARAMS, 16
        .set MAX_DIMS, 8
        .set DATA_LIMIT, 4096
        .set O_NAME, 0
        .set O_DATATYPE, 8
        .set O_SHAPE, 16
        .set O_DIM_COUNT, 24
        .set O_BASE, 32
        .set O_BYTE_SIZE, 40
        .set O_MEMORY_TYPE, 48
        .set O_MEMORY_TYPE_ID, 56
        .set O_USERP, 64
        .set O_DATA, 72
        .set O_NAME_COPY, 80
        .set O_SHAPE_COPY, 144
        .set P_NAME, 0
        .set P_TYPE, 8
        .set P_VALUE, 16
        .set P_SCALAR, 24
        .set P_NAME_COPY, 32
        .set P_STRING_COPY, 96

        # The generator's helpers (call, checked, copyString in x86_64_reader.ts). GNU as macro
        # names ignore case: none may be an instruction's.
        .macro CALL_FN fn
        call    *\fn\()_AT(%rip)
        .endm
        .macro CALL_CHECKED fn
        CALL_FN \fn
        test    %rax, %rax
        {disp32} jne failed
        .endm
        .macro COPY_STRING dst, src, cap
        lea     \dst, %rdi
        mov     \src, %rsi
        mov     $\cap, %ecx
        call    copy_string
        .endm

        .text
read:
        endbr64
        push    %rbx
        push    %rbp
        push    %r12
        push    %r13
        push    %r14
        push    %r15
        sub     $40, %rsp
        mov     %rdi, %rbx
        mov     %rsi, %r12
        movq    $0, CALL_ERROR(%r12)
        mov     %rbx, %rdi
        CALL_FN RESPONSE_ERROR
        mov     %rax, RESP_ERROR(%r12)
        test    %rax, %rax
        {disp32} jne     ok
        # outputs
        mov     %rbx, %rdi
        lea     OUTPUT_COUNT(%r12), %rsi
        CALL_CHECKED OUTPUT_COUNT_FN
        mov     OUTPUT_COUNT(%r12), %r15d
        cmp     $MAX_OUTPUTS, %r15
        jbe     outputs_bounded
        mov     $MAX_OUTPUTS, %r15d
outputs_bounded:
        mov     $DATA, %ebp
        xor     %r13d, %r13d
        lea     OUTPUTS(%r12), %r14
outputs_loop:
        cmp     %r15d, %r13d
        {disp32} jae     outputs_done
        mov     %rbx, %rdi
        mov     %r13d, %esi
        lea     O_NAME(%r14), %rdx
        lea     O_DATATYPE(%r14), %rcx
        lea     O_SHAPE(%r14), %r8
        lea     O_DIM_COUNT(%r14), %r9
        lea     O_BASE(%r14), %rax
        mov     %rax, 0(%rsp)
        lea     O_BYTE_SIZE(%r14), %rax
        mov     %rax, 8(%rsp)
        lea     O_MEMORY_TYPE(%r14), %rax
        mov     %rax, 16(%rsp)
        lea     O_MEMORY_TYPE_ID(%r14), %rax
        mov     %rax, 24(%rsp)
        lea     O_USERP(%r14), %rax
        mov     %rax, 32(%rsp)
        CALL_CHECKED OUTPUT_FN
        COPY_STRING O_NAME_COPY(%r14), O_NAME(%r14), NAME_CAP
        mov     O_DIM_COUNT(%r14), %rdx
        cmp     $MAX_DIMS, %rdx
        ja      shape_skip
        lea     O_SHAPE_COPY(%r14), %rdi
        mov     O_SHAPE(%r14), %rsi
        shl     $3, %rdx
        CALL_FN MEMCPY
shape_skip:
        movq    $0, O_DATA(%r14)
        cmpl    $2, O_MEMORY_TYPE(%r14)
        je      data_skip
        mov     O_BYTE_SIZE(%r14), %rdx
        cmp     $DATA_LIMIT, %rdx
        ja      data_skip
        mov     %rbp, %rcx
        add     %rdx, %rcx
        cmp     $RECORD_BYTES, %rcx
        ja      data_skip
        mov     %rbp, O_DATA(%r14)
        mov     %r12, %rdi
        add     %rbp, %rdi
        mov     O_BASE(%r14), %rsi
        mov     %rcx, %rbp
        add     $7, %rbp
        and     $-8, %rbp
        CALL_FN MEMCPY
data_skip:
        inc     %r13d
        add     $OUTPUT_SIZE, %r14
        {disp32} jmp     outputs_loop
outputs_done:
        # model and id
        mov     %rbx, %rdi
        lea     MODEL_NAME(%r12), %rsi
        lea     MODEL_VERSION(%r12), %rdx
        CALL_CHECKED MODEL_FN
        COPY_STRING MODEL_COPY(%r12), MODEL_NAME(%r12), STRING_CAP
        mov     %rbx, %rdi
        lea     ID(%r12), %rsi
        CALL_CHECKED ID_FN
        COPY_STRING ID_COPY(%r12), ID(%r12), STRING_CAP
        # parameters
        mov     %rbx, %rdi
        lea     PARAM_COUNT(%r12), %rsi
        CALL_CHECKED PARAM_COUNT_FN
        mov     PARAM_COUNT(%r12), %r15d
        cmp     $MAX_PARAMS, %r15
        jbe     params_bounded
        mov     $MAX_PARAMS, %r15d
params_bounded:
        xor     %r13d, %r13d
        lea     PARAMS(%r12), %r14
params_loop:
        cmp     %r15d, %r13d
        {disp32} jae     ok
        mov     %rbx, %rdi
        mov     %r13d, %esi
        lea     P_NAME(%r14), %rdx
        lea     P_TYPE(%r14), %rcx
        lea     P_VALUE(%r14), %r8
        CALL_CHECKED PARAM_FN
        COPY_STRING P_NAME_COPY(%r14), P_NAME(%r14), NAME_CAP
        mov     P_TYPE(%r14), %eax
        cmp     $0, %eax
        jne     param_scalar
        COPY_STRING P_STRING_COPY(%r14), P_VALUE(%r14), VALUE_CAP
        jmp     param_next
param_scalar:
        movq    $0, P_SCALAR(%r14)
        mov     P_VALUE(%r14), %rsi
        test    %rsi, %rsi
        je      param_next
        cmp     $2, %eax
        jne     param_wide
        movzbl  (%rsi), %ecx
        mov     %rcx, P_SCALAR(%r14)
        jmp     param_next
param_wide:
        cmp     $1, %eax
        je      param_copy8
        cmp     $3, %eax
        jne     param_next
param_copy8:
        mov     (%rsi), %rcx
        mov     %rcx, P_SCALAR(%r14)
param_next:
        inc     %r13d
        add     $PARAM_SIZE, %r14
        {disp32} jmp     params_loop
ok:
        xor     %eax, %eax
        jmp     exit
failed:
        mov     %rax, CALL_ERROR(%r12)
        mov     $1, %eax
exit:
        add     $40, %rsp
        pop     %r15
        pop     %r14
        pop     %r13
        pop     %r12
        pop     %rbp
        pop     %rbx
        ret
copy_string:
        test    %rsi, %rsi
        je      copy_string_null
        xor     %edx, %edx
        jmp     *MEMCCPY_AT(%rip)
copy_string_null:
        movb    $0, (%rdi)
        ret

        # the address table: every function the code calls, in the order first called, read
        # RIP-relative
        .balign 8, 0xcc
RESPONSE_ERROR_AT:
        .quad   RESPONSE_ERROR
OUTPUT_COUNT_FN_AT:
        .quad   OUTPUT_COUNT_FN
OUTPUT_FN_AT:
        .quad   OUTPUT_FN
MEMCPY_AT:
        .quad   MEMCPY
MODEL_FN_AT:
        .quad   MODEL_FN
ID_FN_AT:
        .quad   ID_FN
PARAM_COUNT_FN_AT:
        .quad   PARAM_COUNT_FN
PARAM_FN_AT:
        .quad   PARAM_FN
MEMCCPY_AT:
        .quad   MEMCCPY
