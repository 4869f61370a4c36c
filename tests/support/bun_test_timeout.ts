/**
 * Preloaded by `bun test` (bunfig.toml): 60 s per test, as `npm test` gives every runner. Bun's
 * default is 5 s, too short for the tests that start a real core's server or run 100,000
 * inferences, and bunfig.toml has no setting for it; `bun test --timeout` still overrides this.
 *
 * @module
 */
import { setDefaultTimeout } from "bun:test";

setDefaultTimeout(60_000);
