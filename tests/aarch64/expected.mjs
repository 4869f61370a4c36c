// The callback path the binding must choose on aarch64, per runtime: `npm run test:aarch64`
// (tests/aarch64/run.mjs) fails when the binding, left to choose (TRITONFFI_CALLBACKS unset),
// takes another.
//
// "native" for each runtime: Deno and Node run the generated A64 routines (ffi/native/a64/),
// Bun its C ring producers compiled by cc() with the generated A64 atomics and submitter
// (ffi/native/platform.ts picks them), so a fallback to the JS callbacks on aarch64 fails CI.
// AARCH64_EXPECT_CALLBACKS=native (or js) overrides it for every runtime, for a try by hand.
export const EXPECTED_CALLBACKS = {
  deno: "native",
  bun: "native",
  node: "native",
};
