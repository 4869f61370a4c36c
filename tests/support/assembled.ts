/**
 * The references of the x86-64 generators as the GNU assembler made them: the test build
 * (tests/thunk_driver/build.mjs) assembles tests/thunk_driver/<name>.S into
 * .build/thunk_driver/<name>.bin where `as` and `objcopy` are present.
 *
 * @module
 */
import { existsSync, readFileSync } from "node:fs";

/** The .text bytes assembled from tests/thunk_driver/`name`.S; undefined where the test build had
 * no GNU assembler. */
export function assembledReference(name: string): number[] | undefined {
  const path = decodeURIComponent(
    new URL(`../../.build/thunk_driver/${name}.bin`, import.meta.url).pathname,
  );
  return existsSync(path) ? Array.from(readFileSync(path)) : undefined;
}

/** Why a comparison with {@link assembledReference} is skipped. */
export const NO_ASSEMBLER = "no GNU assembler in the test build";
