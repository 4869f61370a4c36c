/**
 * The models an OpenAI service serves, by OpenAI name, checked once when it starts: the `models`
 * option's mappings against their models' configurations, or (without the option) every ready
 * model of the repository whose configuration follows vLLM's or TensorRT-LLM's convention.
 *
 * @module
 */
import { isRecord } from "../../src/value_checks.ts";
import { TritonError } from "../../src/errors.ts";
import type { Server } from "../../src/server.ts";
import { chatTemplateOf } from "./chat_template.ts";
import type { GenerationTarget } from "./completions.ts";
import type {
  EmbeddingPlan,
  OpenAIEmbeddingModel,
  OpenAIGenerationModel,
  OpenAIModel,
} from "./mapping.ts";
import { conventionOf, embeddingPlan, generationPlan } from "./plans.ts";
import { toolCallParserOf } from "./tool_calls.ts";
import { type TokenCounter, tokenCounterOf } from "./tokenizer.ts";

/** A served model. */
export type ServedModel =
  | ({ readonly kind: "generation" } & GenerationTarget)
  | {
    readonly kind: "embedding";
    readonly plan: EmbeddingPlan;
    readonly tokenizer: TokenCounter | undefined;
  };

const MODEL_FIELDS = [
  "model",
  "version",
  "mapping",
  "chatTemplate",
  "toolCallParser",
  "embedding",
  "tokenizer",
];

/** One generation model, checked, with its chat template. */
function generationModel(
  server: Server,
  name: string,
  spec: OpenAIGenerationModel,
): ServedModel {
  const plan = generationPlan(server, name, spec);
  const what = name === plan.model.name
    ? `model '${name}'`
    : `model '${plan.model.name}' (served as '${name}')`;
  return {
    kind: "generation",
    plan,
    template: chatTemplateOf(server, plan.model.name, spec.chatTemplate, what),
    toolCallParser: toolCallParserOf(spec.toolCallParser, what),
    tokenizer: tokenCounterOf(server, plan.model.name, spec.tokenizer, what),
  };
}

/** One embedding model, checked, with its tokenizer. */
function embeddingModel(server: Server, name: string, spec: OpenAIEmbeddingModel): ServedModel {
  const plan = embeddingPlan(server, name, spec);
  const what = name === plan.model.name
    ? `model '${name}'`
    : `model '${plan.model.name}' (served as '${name}')`;
  return {
    kind: "embedding",
    plan,
    tokenizer: tokenCounterOf(server, plan.model.name, spec.tokenizer, what),
  };
}

/**
 * The served models: those of `models`, or the repository's ready models that follow a
 * convention (under their Triton names).
 * @throws {TritonError} INVALID_ARG for a malformed entry or a mapping that does not fit its
 *   model (naming the model and the tensor); Triton's error for a model that is not ready.
 */
export function servedModels(
  server: Server,
  models: Readonly<Record<string, OpenAIModel>> | undefined,
): Map<string, ServedModel> {
  const served = new Map<string, ServedModel>();
  if (models === undefined) {
    for (const entry of server.models({ readyOnly: true })) {
      if (served.has(entry.name)) continue;
      const convention = conventionOf(server.model(entry.name).config());
      if (convention !== undefined) {
        served.set(entry.name, generationModel(server, entry.name, { mapping: convention }));
      }
    }
    return served;
  }
  if (!isRecord(models)) {
    throw new TritonError("INVALID_ARG", "models must be an object of OpenAI name → model");
  }
  for (const [name, spec] of Object.entries(models)) {
    const fail = (message: string): never => {
      throw new TritonError("INVALID_ARG", `models['${name}']: ${message}`);
    };
    if (name === "" || name.includes("\0")) fail("an OpenAI model name must be a non-empty string");
    if (!isRecord(spec)) {
      fail(
        "must be { model?, version?, mapping, chatTemplate?, toolCallParser?, tokenizer? } or " +
          "{ model?, version?, embedding, tokenizer? }",
      );
    }
    for (const key of Object.keys(spec)) {
      if (!MODEL_FIELDS.includes(key)) {
        fail(`unknown field '${key}' (it takes ${MODEL_FIELDS.join(", ")})`);
      }
    }
    const s = spec as unknown as Record<string, unknown>;
    if (s.model !== undefined && (typeof s.model !== "string" || s.model === "")) {
      fail("model must be a Triton model name");
    }
    if (
      s.version !== undefined && (!Number.isSafeInteger(s.version) || (s.version as number) < -1)
    ) {
      fail("version must be an integer >= -1");
    }
    if ((s.mapping === undefined) === (s.embedding === undefined)) {
      fail("give either mapping (completions and chat) or embedding");
    }
    if (s.embedding !== undefined && s.chatTemplate !== undefined) {
      fail("an embedding model takes no chatTemplate");
    }
    if (s.embedding !== undefined && s.toolCallParser !== undefined) {
      fail("an embedding model takes no toolCallParser");
    }
    served.set(
      name,
      s.embedding !== undefined
        ? embeddingModel(server, name, spec as OpenAIEmbeddingModel)
        : generationModel(server, name, spec as OpenAIGenerationModel),
    );
  }
  return served;
}
