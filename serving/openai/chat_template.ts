/**
 * Chat templates: a model's conversation format, as Hugging Face writes it in
 * `tokenizer_config.json` (`chat_template`, Jinja; `bos_token`, `eos_token`), rendered with
 * `@huggingface/jinja` into the prompt the model gets.
 *
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Template } from "@huggingface/jinja";
import { TritonError } from "../../src/errors.ts";
import type { Server } from "../../src/server.ts";
import { OpenAIError } from "./openai_error.ts";
import type { ChatMessage } from "./request.ts";

/** A parsed chat template and the special tokens it may name. */
export class ChatTemplate {
  readonly #template: Template;
  readonly #tokens: Readonly<Record<string, string>>;
  /** Where it came from, for messages. */
  readonly source: string;

  /**
   * @param text the Jinja template.
   * @param tokens special tokens the template sees by name (`bos_token`, `eos_token`).
   * @throws {TritonError} INVALID_ARG when the template does not parse, naming `source`.
   */
  constructor(text: string, tokens: Readonly<Record<string, string>>, source: string) {
    try {
      this.#template = new Template(text);
    } catch (e) {
      throw new TritonError(
        "INVALID_ARG",
        `the chat template of ${source} does not parse: ${e instanceof Error ? e.message : e}`,
        { cause: e },
      );
    }
    this.#tokens = tokens;
    this.source = source;
  }

  /**
   * The prompt for `messages`, ending with the assistant's turn (`add_generation_prompt`).
   * @param tools the request's tools, which the template sees as `tools` where given.
   * @throws {OpenAIError} 400 with the template's own message when it refuses the conversation
   *   (its `raise_exception`) or fails on it.
   */
  render(messages: readonly ChatMessage[], tools: readonly unknown[] | undefined): string {
    try {
      return this.#template.render({
        ...this.#tokens,
        messages,
        add_generation_prompt: true,
        ...(tools === undefined ? {} : { tools }),
      });
    } catch (e) {
      throw new OpenAIError(
        400,
        `the chat template of ${this.source} failed on these messages: ${
          e instanceof Error ? e.message : e
        }`,
        "messages",
      );
    }
  }
}

/** A special token of tokenizer_config.json: a string, or an object with `content`. */
function tokenText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null && "content" in value) {
    const content = (value as { content: unknown }).content;
    if (typeof content === "string") return content;
  }
  return undefined;
}

/** The `chat_template` of a tokenizer_config.json: a string, or a list of `{ name, template }`
 * of which the one named `default` (else the first). */
function templateText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (!Array.isArray(value)) return undefined;
  const named = value.filter((t): t is { name?: unknown; template: string } =>
    typeof t === "object" && t !== null && typeof t.template === "string"
  );
  return (named.find((t) => t.name === "default") ?? named[0])?.template;
}

/**
 * The chat template of Triton model `model`: `given`, or `chat_template` of
 * `tokenizer_config.json` in the model's directory of the server's model repository (the first
 * repository that has one); `undefined` where it has none.
 * @param what names the model in messages.
 * @throws {TritonError} INVALID_ARG for a tokenizer_config.json that is not JSON, or a template
 *   that does not parse.
 */
export function chatTemplateOf(
  server: Server,
  model: string,
  given: string | undefined,
  what: string,
): ChatTemplate | undefined {
  if (given !== undefined) {
    if (typeof given !== "string") {
      throw new TritonError("INVALID_ARG", `${what}: chatTemplate must be a string`);
    }
    return new ChatTemplate(given, {}, what);
  }
  const repositories = server.options.modelRepository;
  for (const repository of typeof repositories === "string" ? [repositories] : repositories) {
    const path = join(resolve(repository), model, "tokenizer_config.json");
    if (!existsSync(path)) continue;
    let config: Record<string, unknown>;
    try {
      config = JSON.parse(readFileSync(path, "utf8"));
    } catch (e) {
      throw new TritonError(
        "INVALID_ARG",
        `${what}: ${path} is not JSON: ${e instanceof Error ? e.message : e}`,
        { cause: e },
      );
    }
    const text = templateText(config?.chat_template);
    if (text === undefined) return undefined;
    const tokens: Record<string, string> = {};
    for (const name of ["bos_token", "eos_token", "pad_token", "unk_token"]) {
      const token = tokenText(config[name]);
      if (token !== undefined) tokens[name] = token;
    }
    return new ChatTemplate(text, tokens, `${what} (${path})`);
  }
  return undefined;
}
