/**
 * The allocator policy for a request's output memory choice (`"cpu"`, `"cpu_pinned"`, `"gpu"`,
 * `"gpu:N"`, `"auto"`): the integer the response allocator receives as its `userp` (see
 * `allocator.ts`), checked against the CUDA devices present.
 *
 * @module
 */
import { encodePolicy, PolicyKind } from "./allocator.ts";
import type { CudaRuntime } from "./cuda.ts";
import { TritonError } from "./triton_error.ts";

/** Where the CUDA runtime comes from: loaded on first call; `failure()` says why there is none. */
export interface CudaSource {
  cuda(): CudaRuntime | undefined;
  readonly cudaFailure: string | undefined;
}

/**
 * The policy for `choice`; pinned and GPU memory (and `"auto"`) load libcudart.
 * @param fallback pageable host memory instead when pinned/GPU memory cannot be had.
 * @throws {TritonError} INVALID_ARG for an unknown choice or GPU id; UNAVAILABLE when libcudart
 *   (or a device) is needed, absent, and `fallback` is false.
 */
export function outputPolicy(source: CudaSource, choice: string, fallback: boolean): number {
  if (choice === "cpu") return encodePolicy(PolicyKind.CPU, 0, false);
  if (choice === "auto") {
    source.cuda();
    return encodePolicy(PolicyKind.AUTO, 0, true);
  }
  const gpu = /^gpu(?::(\d+))?$/.exec(choice);
  if (choice !== "cpu_pinned" && !gpu) {
    throw new TritonError(
      "INVALID_ARG",
      `outputMemory must be "cpu", "cpu_pinned", "gpu", "gpu:N" or "auto", not ${choice}`,
    );
  }
  const cuda = source.cuda();
  if (!cuda || cuda.deviceCount === 0) {
    if (fallback) return encodePolicy(PolicyKind.CPU, 0, false);
    throw new TritonError(
      "UNAVAILABLE",
      `outputMemory "${choice}" needs a CUDA device: ${
        cuda ? `${cuda.path} reports none` : source.cudaFailure
      }`,
    );
  }
  if (!gpu) return encodePolicy(PolicyKind.CPU_PINNED, 0, fallback);
  const device = Number(gpu[1] ?? 0);
  if (device >= cuda.deviceCount) {
    throw new TritonError(
      "INVALID_ARG",
      `outputMemory "${choice}": ${cuda.deviceCount} CUDA device(s) present`,
    );
  }
  return encodePolicy(PolicyKind.GPU, device, fallback);
}
