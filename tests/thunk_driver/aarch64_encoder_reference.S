// The A64 encoder's cases (tests/a64_encoder.test.ts), one instruction a line, in its order.
// Assembled by aarch64-linux-gnu-as; the test compares each word with the encoder's.
        .text
        movz x0, #0x0
        movz x30, #0xffff, lsl #48
        movz w5, #0x1234, lsl #16
        movz xzr, #0x1
        movk x9, #0xbeef, lsl #32
        movk w1, #0xffff
        add x0, x1, #0x0
        add sp, sp, #0xfff
        add x29, sp, #0x10
        add w3, w4, #0x1, lsl #12
        sub sp, sp, #0x40
        sub x30, x0, #0xfff, lsl #12
        adds x2, x3, #0x7
        subs w2, w3, #0x1
        cmp x2, #0x1
        cmp sp, #0xfff
        cmp w8, #0x0
        cmn x4, #0x7f
        mov x29, sp
        mov sp, x9
        add x11, x9, x11, lsl #5
        add w0, w1, w2
        add x0, xzr, x30, lsr #63
        sub x1, x2, x3, asr #1
        adds x1, x2, x3
        subs w1, w2, w3, lsl #31
        cmp w12, w10
        cmp x0, xzr
        cmn x5, x6
        and x1, x2, x3
        orr w1, w2, w3, lsl #4
        eor x30, x0, x1, lsr #2
        ands x1, x2, x3
        tst x5, x5
        tst w1, w2
        mov x0, x1
        mov w19, w30
        mov x0, xzr
        ubfx x11, x10, #0, #10
        ubfx x4, x3, #16, #4
        ubfx w0, w1, #31, #1
        ubfiz x11, x10, #5, #30
        ubfiz w1, w2, #0, #32
        lsl x1, x2, #5
        lsl x1, x2, #63
        lsl w1, w2, #1
        lsr x1, x2, #63
        lsr w1, w2, #0
        ubfm x1, x2, #3, #2
        lsl x4, x5, x4
        lsr w4, w5, w6
        csel x0, x1, x2, ne
        csel w0, wzr, w2, hi
        csinc x0, x2, xzr, ne
        cset w0, eq
        cset x9, lo
        cset w1, le
        ldr x0, [x1]
        ldr x30, [sp, #32760]
        ldr w0, [x1, #16380]
        ldr w12, [x11]
        ldrh w3, [x4, #8190]
        ldrb w3, [x4, #4095]
        ldrb w0, [sp]
        ldrsw x3, [x4, #4]
        str x0, [x11, #16]
        str xzr, [x11]
        str w1, [x11, #8]
        str wzr, [sp, #16380]
        strh w1, [x2, #2]
        strb wzr, [x2, #4095]
        ldr x0, [x1, x2]
        ldr x0, [sp, x30, lsl #3]
        ldr w0, [x1, x2, lsl #2]
        ldrb w0, [x1, x2]
        str x0, [x1, x2, lsl #3]
        str w0, [x1, x2]
        strb wzr, [x1, x2]
        ldr x9, .+8
        ldr x16, .+1048572
        ldr x0, .-1048576
        ldr w0, .+4
        ldrsw x1, .-4
        stp x29, x30, [sp, #-16]!
        stp x29, x30, [sp, #-512]!
        stp x0, x1, [sp, #16]
        stp x0, x1, [x2, #504]
        stp w0, w1, [x2], #-256
        stp xzr, xzr, [sp, #-32]!
        ldp x29, x30, [sp], #16
        ldp x29, x30, [sp], #504
        ldp x10, x11, [sp, #48]
        ldp w0, w1, [x2, #-4]!
        ldar w12, [x11]
        ldar x0, [sp]
        stlr w12, [x11]
        stlr xzr, [x30]
        ldxr x1, [x2]
        ldaxr x10, [x9]
        ldaxr w12, [sp]
        stxr w3, x1, [x2]
        stlxr w12, x11, [x9]
        stlxr w14, wzr, [x13]
        dmb ish
        dsb ish
        isb
        nop
        bti c
        mrs x3, ctr_el0
        dc cvau, x0
        ic ivau, x30
        b .+8
        b .-4
        b .+134217724
        b .-134217728
        bl .+4
        bl .-134217728
        b.eq .+12
        b.ne .-1048576
        b.hi .+1048572
        b.le .+0
        cbz x5, .+8
        cbz w12, .-8
        cbnz w12, .+1048572
        cbnz xzr, .-1048576
        tbz w0, #0, .+8
        tbz x1, #63, .-32768
        tbnz w2, #31, .+32764
        tbnz x3, #32, .-4
        br x16
        blr x16
        blr x0
        ret
        ret x1
        adr x1, .+0
        adr x0, .+1
        adr x30, .+1048575
        adr x2, .-1048576
        adr x3, .-3
