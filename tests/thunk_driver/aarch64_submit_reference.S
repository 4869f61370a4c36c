// The A64 request submitter (ffi/native/a64/submit.ts), written by hand with the offsets of
// ffi/native/request_record.ts; tests/a64_routines.test.ts compares generateSubmitA64's bytes with
// this file's .text.
        .text
submit:                                 // int submit(uint8_t* record x0, const void* unused x1)
        bti c
        stp x29, x30, [sp, #-48]!
        mov x29, sp
        stp x19, x20, [sp, #16]
        str x21, [sp, #32]
        mov x19, x0                     // the record
        str xzr, [x19, #136]            // REQUEST
        str xzr, [x19, #144]            // ERROR
        add x0, x19, #136               // RequestNew(&request,
        ldr x1, [x19, #64]              //   server,
        ldr x2, [x19, #72]              //   model,
        ldr x3, [x19, #80]              //   version)
        ldr x16, [x19, #0]
        blr x16
        cbnz x0, failed
        add x20, x19, #192              // input record 0
        ldr x21, [x19, #128]            // inputs left
inputs_loop:
        cbz x21, inputs_done
        ldr x0, [x19, #136]             // AddInput(request,
        ldr x1, [x20, #0]               //   name,
        ldr x2, [x20, #8]               //   datatype,
        ldr x3, [x20, #16]              //   shape,
        ldr x4, [x20, #24]              //   dim_count)
        ldr x16, [x19, #8]
        blr x16
        cbnz x0, failed
        ldr x3, [x20, #40]              // byte_size
        cbz x3, inputs_next
        ldr x0, [x19, #136]             // AppendInputData(request,
        ldr x1, [x20, #0]               //   name,
        ldr x2, [x20, #32]              //   base, byte_size,
        ldr x4, [x20, #48]              //   memory_type,
        ldr x5, [x20, #56]              //   memory_type_id)
        ldr x16, [x19, #16]
        blr x16
        cbnz x0, failed
inputs_next:
        add x20, x20, #64
        sub x21, x21, #1
        b inputs_loop
inputs_done:
        ldr x0, [x19, #136]             // SetReleaseCallback(request,
        ldr x1, [x19, #112]             //   release,
        ldr x2, [x19, #120]             //   userp)
        ldr x16, [x19, #24]
        blr x16
        cbnz x0, failed
        ldr x0, [x19, #136]             // SetResponseCallback(request,
        ldr x1, [x19, #88]              //   allocator,
        ldr x2, [x19, #96]              //   allocator userp,
        ldr x3, [x19, #104]             //   response,
        ldr x4, [x19, #120]             //   userp)
        ldr x16, [x19, #32]
        blr x16
        cbnz x0, failed
        ldr x0, [x19, #64]              // ServerInferAsync(server,
        ldr x1, [x19, #136]             //   request,
        movz x2, #0                     //   NULL)
        ldr x16, [x19, #40]
        blr x16
        cbnz x0, failed
        movz w0, #0                     // submitted
        b exit
failed:
        str x0, [x19, #144]             // ERROR
        movz w0, #1
exit:
        ldr x21, [sp, #32]
        ldp x19, x20, [sp, #16]
        ldp x29, x30, [sp], #48
        ret
