/**
 * Wrappers of a fixed arity around a raw FFI function, for the adapters that convert arguments
 * (strings to NUL-terminated bytes) or results. A rest-parameter wrapper that spreads its
 * arguments into the raw function leaves Deno's fast FFI path; one with the function's exact arity
 * stays on it (bench/README.md, "Costs the code is shaped by").
 *
 * @module
 */

/** Converts one argument (or a result). */
export type Convert = (value: unknown) => unknown;

const same: Convert = (v) => v;

/**
 * `(a, b, …) => post(raw(conv[0](a), conv[1](b), …))` with exactly `arity` parameters (a
 * rest-parameter wrapper past 12).
 * @param conv converters by argument position (missing ones pass the argument through).
 */
export function fixedArity(
  arity: number,
  raw: (...args: unknown[]) => unknown,
  conv: readonly (Convert | undefined)[],
  post: Convert = same,
): (...args: unknown[]) => unknown {
  const [c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11] = Array.from(
    { length: 12 },
    (_, i) => conv[i] ?? same,
  );
  const f = raw;
  switch (arity) {
    case 0:
      return () => post(f());
    case 1:
      return (a) => post(f(c0(a)));
    case 2:
      return (a, b) => post(f(c0(a), c1(b)));
    case 3:
      return (a, b, c) => post(f(c0(a), c1(b), c2(c)));
    case 4:
      return (a, b, c, d) => post(f(c0(a), c1(b), c2(c), c3(d)));
    case 5:
      return (a, b, c, d, e) => post(f(c0(a), c1(b), c2(c), c3(d), c4(e)));
    case 6:
      return (a, b, c, d, e, g) => post(f(c0(a), c1(b), c2(c), c3(d), c4(e), c5(g)));
    case 7:
      return (a, b, c, d, e, g, h) => post(f(c0(a), c1(b), c2(c), c3(d), c4(e), c5(g), c6(h)));
    case 8:
      return (a, b, c, d, e, g, h, i) =>
        post(f(c0(a), c1(b), c2(c), c3(d), c4(e), c5(g), c6(h), c7(i)));
    case 9:
      return (a, b, c, d, e, g, h, i, j) =>
        post(f(c0(a), c1(b), c2(c), c3(d), c4(e), c5(g), c6(h), c7(i), c8(j)));
    case 10:
      return (a, b, c, d, e, g, h, i, j, k) =>
        post(f(c0(a), c1(b), c2(c), c3(d), c4(e), c5(g), c6(h), c7(i), c8(j), c9(k)));
    case 11:
      return (a, b, c, d, e, g, h, i, j, k, l) =>
        post(f(c0(a), c1(b), c2(c), c3(d), c4(e), c5(g), c6(h), c7(i), c8(j), c9(k), c10(l)));
    case 12:
      return (a, b, c, d, e, g, h, i, j, k, l, m) =>
        post(
          f(c0(a), c1(b), c2(c), c3(d), c4(e), c5(g), c6(h), c7(i), c8(j), c9(k), c10(l), c11(m)),
        );
    default:
      return (...args) => post(f(...args.map((v, i) => (conv[i] ?? same)(v))));
  }
}
