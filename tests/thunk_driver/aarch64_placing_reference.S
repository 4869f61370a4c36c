// The A64 placing allocator (ffi/native/a64/placing.ts), written by hand for the targets of
// tests/a64_routines.test.ts (jsAlloc 0x7f0000001000, release 0x7f0000002000); the test compares
// generatePlacingA64's bytes with the .text the GNU assembler makes of this file.
        .text
alloc:
        bti c
        cbz x1, alloc_js                // no name: JS
        ldr x9, [x5]                    // entries left
        add x10, x5, #16                // the first entry
alloc_next:
        cbz x9, alloc_js
        ldr x11, [x10]                  // the entry's name
        mov x12, x1                     // the tensor's name
alloc_compare:
        ldrb w13, [x11]
        ldrb w14, [x12]
        cmp w13, w14
        b.ne alloc_skip
        cbz w13, alloc_found
        add x11, x11, #1
        add x12, x12, #1
        b alloc_compare
alloc_skip:
        add x10, x10, #24
        sub x9, x9, #1
        b alloc_next
alloc_found:
        ldr x11, [x10, #16]             // the part's bytes
        cmp x2, x11
        b.hi alloc_js                   // larger: JS
        ldr x11, [x10, #8]              // the part's address
        str x11, [x6]
        movz x12, #0xff                 // REGION
        str x12, [x7]
        ldp x13, x14, [sp]              // actual_type, actual_type_id
        str wzr, [x13]
        str xzr, [x14]
        movz x0, #0
        ret
alloc_js:
        ldr x16, lit_js_alloc
        br x16

release:
        bti c
        cmp x2, #0xff
        b.ne release_other
        movz x0, #0
        ret
release_other:
        ldr x16, lit_release
        br x16

        .balign 8
lit_js_alloc:   .quad 0x00007f0000001000
lit_release:    .quad 0x00007f0000002000
