// The A64 response reader (ffi/native/a64/reader.ts), written by hand with the offsets of
// ffi/native/response_record.ts, for the targets of tests/a64_routines.test.ts (0x7f0000001000
// upward); the test compares generateReaderA64's bytes with the .text the GNU assembler makes
// of this file.
        .text
read:                                   // int read(response x0, uint8_t* record x1)
        bti c
        sub sp, sp, #96
        stp x29, x30, [sp, #32]
        add x29, sp, #32
        stp x19, x20, [sp, #48]
        stp x21, x22, [sp, #64]
        stp x23, x24, [sp, #80]
        mov x19, x0                     // response
        mov x20, x1                     // record
        str xzr, [x20]                  // CALL_ERROR
        mov x0, x19
        ldr x16, lit_response_error
        blr x16
        str x0, [x20, #8]               // RESPONSE_ERROR
        cbnz x0, ok
        // ---- outputs
        mov x0, x19
        add x1, x20, #16                // &OUTPUT_COUNT
        ldr x16, lit_output_count
        blr x16
        cbnz x0, failed
        ldr w23, [x20, #16]
        cmp w23, #16                    // MAX_OUTPUTS
        b.ls outputs_bounded
        movz w23, #16
outputs_bounded:
        movz w24, #8192                 // DATA
        movz w21, #0
        add x22, x20, #320              // OUTPUTS
outputs_loop:
        cmp w21, w23
        b.hs outputs_done
        mov x0, x19
        mov w1, w21
        add x2, x22, #0                 // &name
        add x3, x22, #8                 // &datatype
        add x4, x22, #16                // &shape
        add x5, x22, #24                // &dim_count
        add x6, x22, #32                // &base
        add x7, x22, #40                // &byte_size
        add x9, x22, #48                // &memory_type
        add x10, x22, #56               // &memory_type_id
        stp x9, x10, [sp]
        add x9, x22, #64                // &userp
        str x9, [sp, #16]
        ldr x16, lit_output
        blr x16
        cbnz x0, failed
        add x0, x22, #80                // NAME_COPY
        ldr x1, [x22, #0]
        movz x3, #64                    // NAME_CAP
        bl copy_string
        ldr x2, [x22, #24]              // dim_count
        cmp x2, #8                      // MAX_DIMS
        b.hi shape_skip
        add x0, x22, #144               // SHAPE_COPY
        ldr x1, [x22, #16]
        lsl x2, x2, #3
        ldr x16, lit_memcpy
        blr x16
shape_skip:
        str xzr, [x22, #72]             // DATA: not copied
        ldr w9, [x22, #48]              // memory_type
        cmp w9, #2                      // GPU
        b.eq data_skip
        ldr x2, [x22, #40]              // byte_size
        cmp x2, #1, lsl #12             // DATA_LIMIT 4096
        b.hi data_skip
        add x9, x24, x2
        cmp x9, #16, lsl #12            // RECORD_BYTES 65536
        b.hi data_skip
        str x24, [x22, #72]
        add x0, x20, x24
        ldr x1, [x22, #32]              // base
        add x24, x9, #7
        lsr x24, x24, #3
        lsl x24, x24, #3
        ldr x16, lit_memcpy
        blr x16
data_skip:
        add w21, w21, #1
        add x22, x22, #208              // OUTPUT_SIZE
        b outputs_loop
outputs_done:
        mov x0, x19
        add x1, x20, #32                // &MODEL_NAME
        add x2, x20, #40                // &MODEL_VERSION
        ldr x16, lit_model
        blr x16
        cbnz x0, failed
        add x0, x20, #64                // MODEL_COPY
        ldr x1, [x20, #32]
        movz x3, #128                   // STRING_CAP
        bl copy_string
        mov x0, x19
        add x1, x20, #48                // &ID
        ldr x16, lit_id
        blr x16
        cbnz x0, failed
        add x0, x20, #192               // ID_COPY
        ldr x1, [x20, #48]
        movz x3, #128
        bl copy_string
        // ---- parameters
        mov x0, x19
        add x1, x20, #24                // &PARAM_COUNT
        ldr x16, lit_parameter_count
        blr x16
        cbnz x0, failed
        ldr w23, [x20, #24]
        cmp w23, #16                    // MAX_PARAMS
        b.ls params_bounded
        movz w23, #16
params_bounded:
        movz w21, #0
        add x22, x20, #3648             // PARAMS
params_loop:
        cmp w21, w23
        b.hs ok
        mov x0, x19
        mov w1, w21
        add x2, x22, #0                 // &name
        add x3, x22, #8                 // &type
        add x4, x22, #16                // &value
        ldr x16, lit_parameter
        blr x16
        cbnz x0, failed
        add x0, x22, #32                // NAME_COPY
        ldr x1, [x22, #0]
        movz x3, #64
        bl copy_string
        ldr w9, [x22, #8]               // type
        cmp w9, #0                      // STRING
        b.ne param_scalar
        add x0, x22, #96                // STRING_COPY
        ldr x1, [x22, #16]
        movz x3, #112                   // VALUE_CAP
        bl copy_string
        b param_next
param_scalar:
        str xzr, [x22, #24]             // SCALAR
        ldr x1, [x22, #16]
        cbz x1, param_next
        cmp w9, #2                      // BOOL
        b.ne param_wide
        ldrb w10, [x1]
        str x10, [x22, #24]
        b param_next
param_wide:
        cmp w9, #1                      // INT
        b.eq param_copy8
        cmp w9, #3                      // DOUBLE
        b.ne param_next
param_copy8:
        ldr x10, [x1]
        str x10, [x22, #24]
param_next:
        add w21, w21, #1
        add x22, x22, #208              // PARAM_SIZE
        b params_loop
ok:
        movz w0, #0
        b exit
failed:
        str x0, [x20]                   // CALL_ERROR
        movz w0, #1
exit:
        ldp x23, x24, [sp, #80]
        ldp x21, x22, [sp, #64]
        ldp x19, x20, [sp, #48]
        ldp x29, x30, [sp, #32]
        add sp, sp, #96
        ret
copy_string:                            // x0 dst, x1 src, x3 cap
        cbz x1, copy_string_null
        movz w2, #0
        ldr x16, lit_memccpy
        br x16                          // memccpy(dst, src, 0, cap), returning to our caller
copy_string_null:
        strb wzr, [x0]
        ret

        .balign 8
lit_response_error:     .quad 0x00007f0000001000
lit_output_count:       .quad 0x00007f0000002000
lit_output:             .quad 0x00007f0000003000
lit_model:              .quad 0x00007f0000004000
lit_id:                 .quad 0x00007f0000005000
lit_parameter_count:    .quad 0x00007f0000006000
lit_parameter:          .quad 0x00007f0000007000
lit_memcpy:             .quad 0x00007f0000008000
lit_memccpy:            .quad 0x00007f0000009000
