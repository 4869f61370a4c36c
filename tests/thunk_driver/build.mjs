// Builds the test driver for the native callbacks (tests/thunks.test.ts) into
// .build/thunk_driver/libthunk_driver.so, and, where the GNU assembler is present, assembles
// x86_64_reference.S, x86_64_reader_reference.S, x86_64_delete_each_reference.S,
// x86_64_submit_reference.S and x86_64_placing_reference.S into .build/thunk_driver/<name>.bin
// (their .text) for the tests to compare with the x86-64 generators' bytes:
//   as --64 -o x86_64_reference.o x86_64_reference.S
//   objcopy -O binary --only-section=.text x86_64_reference.o x86_64_reference.bin
// Without `as` (or objcopy) the thunks' test compares with the listing committed in it, and the
// reader's, the batch deleter's, the request submitter's and the placing allocator's comparisons
// are skipped.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { buildSharedLibrary, root } from "../build_shared_library.mjs";

buildSharedLibrary("thunk driver", "thunk_driver", "libthunk_driver.so", [
  "tests/thunk_driver/driver.c",
]);

const out = join(root, ".build", "thunk_driver");
const references = [
  "x86_64_reference",
  "x86_64_reader_reference",
  "x86_64_delete_each_reference",
  "x86_64_submit_reference",
  "x86_64_placing_reference",
];
// Never compare with the bytes of an earlier build: all are removed before any is assembled, so
// a missing `as` or objcopy leaves none behind.
for (const name of references) rmSync(join(out, `${name}.bin`), { force: true });
for (const name of references) {
  const object = join(out, `${name}.o`);
  const bin = join(out, `${name}.bin`);
  const source = join(root, "tests", "thunk_driver", `${name}.S`);
  const as = spawnSync(process.env.AS ?? "as", ["--64", "-o", object, source], {
    stdio: "inherit",
  });
  if (as.error) {
    console.log(`thunk driver: no GNU assembler (as): ${name}.S is not assembled`);
    break;
  } else if (as.status !== 0) {
    console.error(`thunk driver: as failed on ${name}.S`);
    process.exit(as.status ?? 1);
  }
  const copy = spawnSync(
    process.env.OBJCOPY ?? "objcopy",
    ["-O", "binary", "--only-section=.text", object, bin],
    { stdio: "inherit" },
  );
  if (copy.error) {
    console.log(`thunk driver: no objcopy: ${name}.S is not assembled`);
    break;
  } else if (copy.status !== 0) process.exit(copy.status ?? 1);
}
