// The A64 batch deleter's comparator (ffi/native/a64/delete_each.ts), written by hand;
// tests/a64_routines.test.ts compares generateDeleteEachA64's bytes with this file's .text.
        .text
delete_each:                            // int delete_each(void* const* table x0, const uint64_t* item x1)
        bti c
        stp x29, x30, [sp, #-16]!
        mov x29, sp
        ldr x2, [x1]                    // the item
        ubfx x3, x2, #0, #1             // its kind
        ldr x16, [x0, x3, lsl #3]       // table[kind]
        sub x0, x2, x3                  // the address
        blr x16
        movz w0, #1                     // not found: lfind goes on
        ldp x29, x30, [sp], #16
        ret
