// The atomic operations of Bun's C ring producers on aarch64 (ffi/native/a64/atomics.ts), written
// by hand; tests/a64_routines.test.ts compares generateAtomicsA64's bytes with this file's .text.
        .text
fetch_increment:                        // uint64_t fetch_increment(uint64_t* p x0)
        bti c
1:      ldaxr x1, [x0]                  // the old value (acquire)
        add x2, x1, #1
        stlxr w3, x2, [x0]              // the new one (release); w3 = 1 when the monitor was lost
        cbnz w3, 1b
        mov x0, x1
        ret
exchange:                               // uint32_t exchange(uint32_t* p x0, uint32_t v w1)
        bti c
2:      ldaxr w2, [x0]
        stlxr w3, w1, [x0]
        cbnz w3, 2b
        mov w0, w2
        ret
load_acquire:                           // uint32_t load_acquire(uint32_t* p x0)
        bti c
        ldar w0, [x0]
        ret
