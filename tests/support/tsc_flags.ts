/**
 * tsc's flags for a user's program type-checked against the package's declarations (no
 * tsconfig; the settings a project on Node with TypeScript's current defaults would have).
 *
 * @module
 */
export const USER_PROGRAM_TSC_FLAGS: readonly string[] = [
  "--ignoreConfig",
  "--noEmit",
  "--strict",
  "--target",
  "esnext",
  "--module",
  "nodenext",
  "--moduleResolution",
  "nodenext",
  "--allowImportingTsExtensions",
  "--lib",
  "esnext,dom",
  "--types",
  "node",
];
