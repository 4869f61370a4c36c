/**
 * Temporary model repositories for the repository-control tests: a directory under the system's
 * temporary directory, filled with small model directories and removed afterwards.
 *
 * @module
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A temporary repository; `remove()` deletes it and everything in it. */
export interface TempRepo {
  /** Absolute path of the repository. */
  readonly path: string;
  /** Writes `files` (relative path → text) under `dir` inside the repository. */
  add(dir: string, files: Record<string, string>): void;
  /** Deletes the repository. */
  remove(): void;
}

/** Creates an empty temporary repository. */
export function tempRepo(): TempRepo {
  const path = mkdtempSync(join(tmpdir(), "tritonffi-repo-"));
  return {
    path,
    add(dir, files) {
      for (const [file, text] of Object.entries(files)) {
        const full = join(path, dir, file);
        mkdirSync(join(full, ".."), { recursive: true });
        writeFileSync(full, text);
      }
    },
    remove() {
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/** config.pbtxt of an identity-backend model with one INT32 input and output of any length. */
export function identityConfig(name?: string, maxBatchSize = 0): string {
  return [
    name === undefined ? "" : `name: "${name}"`,
    'backend: "identity"',
    `max_batch_size: ${maxBatchSize}`,
    'input [ { name: "INPUT0" data_type: TYPE_INT32 dims: [ -1 ] } ]',
    'output [ { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ -1 ] } ]',
    "instance_group [ { count: 1 kind: KIND_CPU } ]",
    "",
  ].join("\n");
}
