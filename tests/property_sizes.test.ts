/**
 * Property test of every byte arriving (issue 30, beside tests/size_matrix.test.ts): fast-check
 * draws a data type, a size — mostly within ±2 elements (BYTES: ±2 bytes) of a size where the
 * binding changes how it moves an output (`POOLED_LIMIT`, `DATA_LIMIT`, `RECORD_BYTES`,
 * `COPY_LIMIT`), sometimes a handful of elements, sometimes anywhere up to 1 MiB — its data, and
 * a path (in process, HTTP binary, gRPC ModelInfer, gRPC ModelStreamInfer, the gRPC ones on each
 * transport); the identity model's
 * echo must come back byte for byte, and afterwards nothing may be left in flight.
 *
 * Fixed seed; `FUZZ_RUNS=n` (default 1000 here, not 150: a case takes some 6 ms, the whole run
 * some 6 s per runtime) and `FUZZ_SEED=s` run more or other cases (docs/testing.md).
 *
 * @module
 */
import process from "node:process";
import { after, before } from "node:test";
import fc from "fast-check";
import { test } from "./support/test.ts";
import type { DataTypeName } from "../mod.ts";
import {
  ALL_DTYPES,
  assertQuiet,
  bytesCase,
  elementBytes,
  MiB,
  numericCase,
  type SizeCase,
  THRESHOLDS,
} from "./support/sizes.ts";
import {
  type Path,
  sizePaths,
  type SizeServing,
  startSizeServing,
  stopSizeServing,
} from "./support/size_paths.ts";

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261230);
const params = { numRuns: RUNS, seed: SEED, endOnFailure: true };

let s: SizeServing;
before(async () => {
  s = await startSizeServing();
});
after(() => stopSizeServing(s));

const paths = sizePaths(() => s);
const PATHS: readonly Path[] = [
  paths.inProcessInfer,
  paths.httpBinary,
  paths.grpcUnary,
  paths.grpcStream,
  paths.grpcUnaryH2,
  paths.grpcStreamH2,
].filter((path) => !path.skip);

/** A size in elements (BYTES: serialized bytes) for `dtype`: near a threshold most of the time. */
function sizes(dtype: DataTypeName): fc.Arbitrary<{ size: number; why: string }> {
  const unit = dtype === "BYTES" ? 1 : elementBytes(dtype);
  return fc.oneof(
    {
      weight: 8,
      arbitrary: fc.record({
        t: fc.constantFrom(...THRESHOLDS),
        d: fc.integer({ min: -2, max: 2 }),
      }).map(({ t, d }) => ({
        size: Math.floor(t.bytes / unit) + d,
        why: `${t.name}${d < 0 ? d : d > 0 ? `+${d}` : ""}`,
      })),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 0, max: 4 }).map((n) => ({ size: n * unit, why: "few" })),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 0, max: MiB / unit }).map((n) => ({ size: n, why: "any" })),
    },
  );
}

/** What is drawn: plain values, so that a counterexample prints short (the case's data is made
 * from them in the property). */
const drawn = fc.constantFrom(...ALL_DTYPES).chain((dtype) =>
  fc.record({
    dtype: fc.constant(dtype),
    size: sizes(dtype),
    seed: fc.nat(),
    long: fc.boolean(),
    path: fc.constantFrom(...PATHS.map((p) => p.name)),
  })
);

/** The case drawn. */
function caseOf(
  d: { dtype: DataTypeName; size: { size: number; why: string }; seed: number; long: boolean },
): SizeCase {
  const { dtype, size: { size, why }, seed, long } = d;
  if (dtype !== "BYTES") return numericCase(dtype, size, why, false, seed);
  // A BYTES tensor of 1–3 bytes cannot be: its elements take 4 bytes each at least.
  const total = size > 0 && size < 4 ? size + 4 : size;
  return bytesCase(total, why, false, long, seed);
}

test("generated sizes near each threshold: the echo is byte-exact on every path", async () => {
  await fc.assert(
    fc.asyncProperty(drawn, async (d) => {
      await PATHS.find((p) => p.name === d.path)!.echo(caseOf(d));
    }),
    params,
  );
  await assertQuiet(s);
});
