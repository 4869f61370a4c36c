// The callback path the binding must choose on aarch64, per runtime: `npm run test:aarch64`
// (tests/aarch64/run.mjs) fails when the binding, left to choose (TRITONFFI_CALLBACKS unset),
// takes another.
//
// "js" today: the binding has native routines for x86-64 only, and on aarch64 falls back to the
// JS callbacks ("no native callbacks for aarch64 yet (x86-64 only)"). When the A64 routines and
// the platform switch that picks them land, this becomes "native" for each runtime that gets
// them, in the same change, so that a fallback on aarch64 fails CI.
// AARCH64_EXPECT_CALLBACKS=native (or js) overrides it for every runtime, for a try by hand.
export const EXPECTED_CALLBACKS = {
  deno: "js",
  bun: "js",
  node: "js",
};
