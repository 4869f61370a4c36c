// Builds the test driver for the native callbacks (tests/thunks.test.ts) into
// .build/thunk_driver/libthunk_driver.so.
import { buildSharedLibrary } from "../build_shared_library.mjs";

buildSharedLibrary("thunk driver", "thunk_driver", "libthunk_driver.so", [
  "tests/thunk_driver/driver.c",
]);
