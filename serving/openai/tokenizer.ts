/**
 * A model's Hugging Face tokenizer (`tokenizer.json`, with `tokenizer_config.json` beside it
 * where there is one), read in JavaScript by `@huggingface/tokenizers`, for counting tokens where
 * the model does not count them: the `usage` of completions, chat and embeddings, and whether
 * `max_tokens` cut a completion.
 *
 * @module
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";
import { TritonError } from "../../src/errors.ts";
import type { Server } from "../../src/server.ts";

/** Counts the tokens of text with one tokenizer. */
export class TokenCounter {
  readonly #tokenizer: Tokenizer;
  /** The tokenizer.json it was read from, for messages. */
  readonly source: string;

  /**
   * @param json the parsed tokenizer.json.
   * @param config the parsed tokenizer_config.json, or `{}`.
   * @throws {TritonError} INVALID_ARG when the tokenizer cannot be built from them, naming
   *   `source`.
   */
  constructor(json: unknown, config: unknown, source: string) {
    try {
      this.#tokenizer = new Tokenizer(json as object, config as object);
    } catch (e) {
      throw new TritonError(
        "INVALID_ARG",
        `${source} is not a tokenizer that can be read: ${e instanceof Error ? e.message : e}`,
        { cause: e },
      );
    }
    this.source = source;
  }

  /**
   * The number of tokens of `text`; `undefined` where the tokenizer fails on it (it is then not
   * counted, rather than failing the call).
   * @param special with the tokens the tokenizer adds around a sequence (its post-processor's,
   *   such as a BOS token): a completion's prompt and an embedding's input are counted with them,
   *   a chat prompt (whose template writes its own) and generated text without.
   */
  count(text: string, special: boolean): number | undefined {
    try {
      return this.#tokenizer.encode(text, { add_special_tokens: special }).ids.length;
    } catch {
      return undefined;
    }
  }
}

/** The parsed JSON of the file at `path`.
 * @throws {TritonError} INVALID_ARG naming `what` and the path when it is not JSON. */
function readJson(path: string, what: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new TritonError(
      "INVALID_ARG",
      `${what}: ${path} cannot be read as JSON: ${e instanceof Error ? e.message : e}`,
      { cause: e },
    );
  }
}

/** The counter of the tokenizer.json at `path`, with the tokenizer_config.json beside it. */
function counterAt(path: string, what: string): TokenCounter {
  const configPath = join(dirname(path), "tokenizer_config.json");
  const config = existsSync(configPath) ? readJson(configPath, what) : {};
  return new TokenCounter(
    readJson(path, what),
    typeof config === "object" && config !== null ? config : {},
    `${what} (${path})`,
  );
}

/**
 * A model's token counter: from `given` (a tokenizer.json, or a directory holding one; relative
 * to the working directory), else from `tokenizer.json` in the model's directory of the server's
 * model repository; `undefined` where there is none.
 * @param what the model as messages name it.
 * @throws {TritonError} INVALID_ARG for a `given` that is not a string or names no tokenizer.json,
 *   or a tokenizer.json that is not JSON or not a tokenizer the library reads.
 */
export function tokenCounterOf(
  server: Server,
  model: string,
  given: string | undefined,
  what: string,
): TokenCounter | undefined {
  if (given !== undefined) {
    if (typeof given !== "string" || given === "") {
      throw new TritonError(
        "INVALID_ARG",
        `${what}: tokenizer must be the path of a tokenizer.json or of its directory`,
      );
    }
    let path = resolve(given);
    if (existsSync(path) && statSync(path).isDirectory()) path = join(path, "tokenizer.json");
    if (!existsSync(path)) {
      throw new TritonError("INVALID_ARG", `${what}: tokenizer: there is no file ${path}`);
    }
    return counterAt(path, what);
  }
  const repositories = server.options.modelRepository;
  for (const repository of typeof repositories === "string" ? [repositories] : repositories) {
    const path = join(resolve(repository), model, "tokenizer.json");
    if (existsSync(path)) return counterAt(path, what);
  }
  return undefined;
}
