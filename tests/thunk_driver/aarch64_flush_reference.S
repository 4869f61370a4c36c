// The instruction-cache flush (ffi/native/a64/flush.ts), written by hand; tests/a64_ring.test.ts
// compares generateFlushA64's bytes with the .text the GNU assembler makes of this file.
        .text
flush:                                  // void flush(void* start x0, void* end x1)
        bti c
        mrs x3, ctr_el0
        movz x5, #4
        ubfx x4, x3, #16, #4            // DminLine (log2 of words)
        lsl x4, x5, x4                  // data cache line bytes
        sub x6, x4, #1
        and x6, x0, x6
        sub x7, x0, x6                  // start, down to its line
flush_data:
        dc cvau, x7
        add x7, x7, x4
        cmp x7, x1
        b.lo flush_data
        dsb ish
        ubfx x4, x3, #0, #4             // IminLine
        lsl x4, x5, x4                  // instruction cache line bytes
        sub x6, x4, #1
        and x6, x0, x6
        sub x7, x0, x6
flush_instructions:
        ic ivau, x7
        add x7, x7, x4
        cmp x7, x1
        b.lo flush_instructions
        dsb ish
        isb
        ret
