// The A64 ring producers and allocator fast path (ffi/native/a64/ring.ts), written by hand for
// the targets of tests/a64_ring.test.ts (ring 0x111122223300, capacity 1024, eventfd 7, the
// other addresses 0x7f0000001000 upward). The test compares generateRingA64's bytes with the
// .text the GNU assembler makes of this file:
//   aarch64-linux-gnu-as -o r.o aarch64_ring_reference.S
//   aarch64-linux-gnu-objcopy -O binary --only-section=.text r.o r.bin
        .text
response_complete:
        bti c
        movz w3, #1                     // kind = RESPONSE
        b push
request_release:
        bti c
        movz w3, #2                     // kind = RELEASE
push:
        ldr x9, lit_ring                // the ring header
claim:
        ldaxr x10, [x9]                 // pos = tail
        add x11, x10, #1
        stlxr w12, x11, [x9]            // tail = pos + 1
        cbnz w12, claim
        ubfiz x11, x10, #5, #10         // (pos & 1023) * 32
        add x11, x9, x11
        add x11, x11, #128              // the slot
wait:
        ldar w12, [x11]                 // seq
        cmp w12, w10
        b.eq claimed
        stp x29, x30, [sp, #-64]!       // full: sched_yield()
        mov x29, sp
        stp x0, x1, [sp, #16]
        stp x2, x3, [sp, #32]
        stp x10, x11, [sp, #48]
        ldr x16, lit_sched_yield
        blr x16
        ldp x10, x11, [sp, #48]
        ldp x2, x3, [sp, #32]
        ldp x0, x1, [sp, #16]
        ldp x29, x30, [sp], #64
        ldr x9, lit_ring
        b wait
claimed:
        str x0, [x11, #16]              // object
        str x2, [x11, #24]              // userp
        str w1, [x11, #8]               // flags
        str w3, [x11, #4]               // kind
        add w12, w10, #1
        stlr w12, [x11]                 // publish seq = pos + 1
        add x13, x9, #64
        ldar w12, [x13]                 // sleeping
        cbnz w12, wake
        ret
wake:
        ldaxr w12, [x13]
        stlxr w14, wzr, [x13]           // sleeping = 0
        cbnz w14, wake
        cbz w12, woken
        stp x29, x30, [sp, #-32]!
        mov x29, sp
        movz x12, #1
        str x12, [sp, #16]
        ldr x0, lit_eventfd
        add x1, sp, #16
        movz x2, #8
        ldr x16, lit_write
        blr x16                         // write(eventfd, &one, 8)
        ldp x29, x30, [sp], #32
woken:
        ret

alloc:
        bti c
        cbz x5, alloc_cpu               // policy CPU (0)?
        ldr x16, lit_js_alloc
        br x16
alloc_cpu:
        stp x29, x30, [sp, #-32]!
        mov x29, sp
        stp x6, x7, [sp, #16]
        cmp x2, #0
        csinc x0, x2, xzr, ne           // malloc(size ? size : 1)
        ldr x16, lit_malloc
        blr x16
        cbz x0, alloc_failed
        ldp x6, x7, [sp, #16]
        str x0, [x6]                    // *buffer
        movz x9, #1
        str x9, [x7]                    // *buffer_userp: CPU, id 0
        ldp x10, x11, [sp, #32]         // actual_type, actual_type_id
        str wzr, [x10]
        str xzr, [x11]
        movz x0, #0
        ldp x29, x30, [sp], #32
        ret
alloc_failed:
        movz w0, #1                     // INTERNAL
        adr x1, message
        ldr x16, lit_error_new
        blr x16
        ldp x29, x30, [sp], #32
        ret

release:
        bti c
        cmp x2, #1
        b.eq release_cpu
        ldr x16, lit_js_release
        br x16
release_cpu:
        stp x29, x30, [sp, #-16]!
        mov x29, sp
        mov x0, x1
        ldr x16, lit_free
        blr x16
        movz x0, #0
        ldp x29, x30, [sp], #16
        ret

query:
        bti c
        cbz x1, query_cpu
        ldr x16, lit_js_query
        br x16
query_cpu:
        str wzr, [x4]
        str xzr, [x5]
        movz x0, #0
        ret

buffer_attributes:
        bti c
        cmp x4, #1
        b.eq attributes_cpu
        ldr x16, lit_js_buffer_attributes
        br x16
attributes_cpu:
        stp x29, x30, [sp, #-32]!
        mov x29, sp
        str x19, [sp, #16]
        mov x19, x2
        mov x0, x2
        movz w1, #0
        ldr x16, lit_set_memory_type
        blr x16
        cbnz x0, attributes_done
        mov x0, x19
        movz x1, #0
        ldr x16, lit_set_memory_type_id
        blr x16
attributes_done:
        ldr x19, [sp, #16]
        ldp x29, x30, [sp], #32
        ret

        .balign 8
lit_ring:                       .quad 0x0000111122223300
lit_sched_yield:                .quad 0x00007f0000001000
lit_write:                      .quad 0x00007f0000002000
lit_eventfd:                    .quad 7
lit_malloc:                     .quad 0x00007f0000003000
lit_free:                       .quad 0x00007f0000004000
lit_error_new:                  .quad 0x00007f0000005000
lit_set_memory_type:            .quad 0x00007f0000006000
lit_set_memory_type_id:         .quad 0x00007f0000007000
lit_js_alloc:                   .quad 0x00007f0000008000
lit_js_release:                 .quad 0x00007f0000009000
lit_js_query:                   .quad 0x00007f000000a000
lit_js_buffer_attributes:       .quad 0x00007f000000b000
message:                        .asciz "malloc of an output buffer failed"
