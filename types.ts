/**
 * tritonffi/types: TypeScript declarations of a model repository's models, from each model's
 * `config.pbtxt` or from a running server — what `npx tritonffi types ./models > models.d.ts`
 * writes, for `new Server<Models>(…)` (see `Model`'s type parameter).
 *
 * @example Declarations from config.pbtxt, and as a running server completes them
 * ```ts
 * import { Server } from "tritonffi";
 * import { repositoryDeclarations, serverDeclarations } from "tritonffi/types";
 *
 * const fromFiles = await repositoryDeclarations(["./models"]); // reads each config.pbtxt
 * await using server = await new Server({ modelRepository: "./models" }).start();
 * const fromServer = serverDeclarations(server); // server.model(name).config() of each model
 * console.log(fromFiles.text.includes("  add_sub: {")); // true: `text` is the models.d.ts
 * console.log(fromServer.models.find((m) => m.name === "add_sub")?.inputs[0]);
 * // { name: "INPUT0", datatype: "FP32", dims: [ 16 ], shape: [ 16 ], optional: false, … }
 * ```
 * @module
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { TritonError } from "./src/errors.ts";
import type { ModelConfig } from "./src/model_config.ts";
import { parseModelConfig } from "./src/model_config_text.ts";
import {
  describeModel,
  type ModelDescription,
  renderDeclarations,
} from "./src/model_declarations.ts";
import type { Server } from "./src/server.ts";

export {
  describeModel,
  type ModelDescription,
  renderDeclarations,
  type RenderOptions,
  type TensorDescription,
} from "./src/model_declarations.ts";
export { parseModelConfig } from "./src/model_config_text.ts";
export {
  parseTextFormat,
  type TextField,
  type TextMessage,
  type TextScalar,
  type TextValue,
} from "./src/text_format.ts";

/** A model left out of the declarations, and why. */
export interface SkippedModel {
  readonly name: string;
  readonly reason: string;
}

/** Declarations and what they leave out. */
export interface Declarations {
  /** The models declared, by name. */
  readonly models: readonly ModelDescription[];
  /** The models left out, each with why. */
  readonly skipped: readonly SkippedModel[];
  /** The text of the `models.d.ts` ({@link renderDeclarations}). */
  readonly text: string;
}

/**
 * Reads every model of model repositories from its `config.pbtxt`, as Triton lays a repository
 * out (a directory per model, named as the model). A model directory without a `config.pbtxt`
 * (one Triton completes from the model file: ONNX, TensorRT, a Python model's
 * `auto_complete_config`) is skipped, as is a folder that holds no version directory or
 * configuration; a backend may also add to a configuration it reads: {@link serverDeclarations}
 * declares what the server runs with.
 * @param repositories the model repositories' paths.
 * @throws {TritonError} INVALID_ARG for a config.pbtxt that is not text format (naming its path,
 *   line and column), a configuration whose `name` is not its directory's, or a model in two
 *   repositories; NOT_FOUND for a repository that is not a directory.
 */
export async function repositoryDeclarations(
  repositories: readonly string[],
): Promise<Declarations> {
  const models: ModelDescription[] = [];
  const skipped: SkippedModel[] = [];
  const seen = new Map<string, string>();
  for (const repository of repositories) {
    let entries: string[];
    try {
      if (!(await stat(repository)).isDirectory()) throw new Error("not a directory");
      entries = (await readdir(repository)).sort();
    } catch (e) {
      throw new TritonError(
        "NOT_FOUND",
        `model repository '${repository}' cannot be read: ${(e as Error).message}`,
      );
    }
    for (const name of entries) {
      const dir = join(repository, name);
      if (!(await stat(dir)).isDirectory()) continue;
      const path = join(dir, "config.pbtxt");
      let text: string;
      try {
        text = await readFile(path, "utf8");
      } catch {
        skipped.push({
          name,
          reason: "no config.pbtxt (a configuration the backend completes: use --server)",
        });
        continue;
      }
      const config = parseModelConfig(text, path);
      if (config.name !== undefined && config.name !== name) {
        throw new TritonError(
          "INVALID_ARG",
          `${path}: the configuration's name '${config.name}' is not its directory's, '${name}'`,
        );
      }
      const other = seen.get(name);
      if (other !== undefined) {
        throw new TritonError(
          "INVALID_ARG",
          `model '${name}' is in two repositories: ${other} and ${repository}`,
        );
      }
      seen.set(name, repository);
      models.push(describeModel(config, name));
    }
  }
  models.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    models,
    skipped,
    text: renderDeclarations(models, {
      source: `tritonffi types ${repositories.join(" ")}`,
      skipped,
    }),
  };
}

/**
 * Declares every ready model of a running server from the configuration it runs with
 * (`server.model(name, version).config()`, `TRITONSERVER_ServerModelConfig`): what the backend
 * completed included. Where a model's ready versions run with different configurations, the
 * highest version's is declared (what version -1 picks by default), and the others are listed in
 * `skipped`; so are the models that are not ready, with Triton's reason.
 * @param server a started server.
 * @param source what to name as the declarations' source in their header.
 * @throws {TritonError} UNAVAILABLE when the server is not running; INVALID_ARG for a
 *   configuration with a data type that is not Triton's.
 */
export function serverDeclarations(
  server: Server,
  source = "tritonffi types --server",
): Declarations {
  const versions = new Map<string, number[]>();
  const notReady = new Map<string, string>();
  for (const entry of server.models()) {
    if (entry.state !== "READY") {
      const why = `not ready (${entry.state ?? "no state"}${
        entry.reason ? `: ${entry.reason}` : ""
      })`;
      notReady.set(entry.name, why);
      continue;
    }
    const list = versions.get(entry.name) ?? [];
    list.push(entry.version ?? -1);
    versions.set(entry.name, list);
  }
  const models: ModelDescription[] = [];
  const skipped: SkippedModel[] = [];
  for (const [name, reason] of [...notReady].sort()) {
    if (!versions.has(name)) skipped.push({ name, reason });
  }
  for (const name of [...versions.keys()].sort()) {
    const ready = versions.get(name)!.sort((a, b) => b - a);
    const configs = ready.map((v) => server.model(name, v).config());
    const described = configs.map((c: ModelConfig) => describeModel(c, name));
    models.push(described[0]);
    const differ = ready.filter((_, i) =>
      JSON.stringify(described[i]) !== JSON.stringify(described[0])
    );
    if (differ.length > 0) {
      skipped.push({
        name,
        reason: `versions ${differ.join(", ")} run with another configuration than version ` +
          `${ready[0]}, which is declared`,
      });
    }
  }
  return { models, skipped, text: renderDeclarations(models, { source, skipped }) };
}
