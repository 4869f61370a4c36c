// Builds the fake CUDA runtime used by the tests into .build/fake_cuda/libcudart.so.
import { buildSharedLibrary } from "../build_shared_library.mjs";

buildSharedLibrary("fake cuda", "fake_cuda", "libcudart.so", ["tests/fake_cuda/fake_cuda.c"]);
