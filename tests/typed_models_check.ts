/**
 * What the compiler says of requests to models typed by their declarations
 * (examples/models.d.ts, written by `tritonffi types tests/models`): each `@ts-expect-error`
 * marks a line it must refuse, every other line it must accept. Never run, only type-checked:
 * tests/model_types.test.ts checks it with `deno check` and with `tsc` against the package's
 * declarations (`npm run check` with `deno check` too).
 *
 * @module
 */
import { type InferResponse, Model, Server, Tensor } from "../mod.ts";
import type { Models } from "../examples/models.d.ts";

/** Requests and responses of typed and untyped models. */
export async function typedModels(server: Server<Models>): Promise<void> {
  const a = new Float32Array(16);
  const addSub = server.model("add_sub");
  using sum = await addSub.inferOne({ inputs: { INPUT0: a, INPUT1: a } });
  const out: Float32Array = sum.output("OUTPUT0").data; // no data type argument
  const checked: Float32Array = sum.output("OUTPUT1", "FP32").data; // the checked form still works
  const maybe: Float32Array | undefined = sum.outputs.OUTPUT0?.data;

  // @ts-expect-error a misspelt input
  await addSub.inferOne({ inputs: { INPUT_0: a, INPUT1: a } });
  // @ts-expect-error a missing input
  await addSub.inferOne({ inputs: { INPUT0: a } });
  // @ts-expect-error a Float64Array where the model takes FP32
  await addSub.inferOne({ inputs: { INPUT0: new Float64Array(16), INPUT1: a } });
  // @ts-expect-error an output the model does not have
  sum.output("OUTPUT2");
  // @ts-expect-error an output's data is its data type's array
  const wrong: Int32Array = sum.output("OUTPUT0").data;
  // @ts-expect-error requested outputs are the model's
  addSub.infer({ inputs: { INPUT0: a, INPUT1: a }, outputs: ["OUTPUT9"] });

  // A decoupled model: infer() yields its responses; inferOne() is refused.
  const repeat = server.model("repeat_int32");
  const inputs = { IN: new Int32Array([1]), DELAY: new Uint32Array(1), WAIT: new Uint32Array(1) };
  for await (const r of repeat.infer({ inputs })) {
    if (!r.final) console.log(r.output("OUT").data satisfies Int32Array);
  }
  // @ts-expect-error inferOne on a decoupled model
  await repeat.inferOne({ inputs });

  // Optional inputs may be left out; BYTES takes strings, BOOL booleans, a record or a Tensor.
  const llm = server.model("tiny_llm");
  llm.infer({ inputs: { text_input: ["hi"] } });
  llm.infer({ inputs: { text_input: Tensor.fromStrings(["hi"]), stream: [true] } });
  llm.infer({ inputs: { text_input: { dtype: "BYTES", shape: [1], data: ["hi"] } } });
  // @ts-expect-error a Uint8Array is UINT8, not BOOL
  llm.infer({ inputs: { text_input: ["hi"], stream: new Uint8Array(1) } });
  // @ts-expect-error a Tensor of another data type
  llm.infer({ inputs: { text_input: new Tensor("INT32", [1], new Int32Array(1)) } });
  for await (const r of llm.infer({ inputs: { text_input: ["hi"] } })) {
    const words: Uint8Array[] = r.output("text_output").data;
    console.log(words);
  }
  const bf16 = await server.model("identity_bf16").inferOne({
    inputs: { INPUT0: { dtype: "BF16", shape: [1, 1], data: [1.5] } },
  });
  console.log(bf16.output("OUTPUT0").data satisfies Uint16Array);
  // @ts-expect-error no TypedArray implies BF16
  await server.model("identity_bf16").inferOne({ inputs: { INPUT0: new Uint16Array(1) } });
  const i64 = await server.model("identity_int64").inferOne({
    inputs: { INPUT0: new BigInt64Array(1) },
  });
  console.log(i64.output("OUTPUT0").data satisfies BigInt64Array);

  // A model without a declaration, or a name the compiler does not know: as without types.
  using other = await server.model("not_declared").inferOne({ inputs: { X: new Float64Array(1) } });
  const y: Float64Array = other.output("Y", "FP64").data;
  // @ts-expect-error without a declaration, output() needs the data type
  other.output("Y");
  const name: string = "add_sub";
  await server.model(name).inferOne({ inputs: { ANYTHING: new Int8Array(1) } });

  // A typed server, model and response are still a Server, a Model and an InferResponse.
  const plain: Server = server;
  const model: Model = addSub;
  const response: InferResponse = sum;
  console.log(out, checked, maybe, wrong, y, plain, model, response);
}

/** An untyped server is exactly as before. */
export async function untyped(server: Server): Promise<void> {
  using r = await server.model("add_sub").inferOne({ inputs: { INPUT0: new Float64Array(1) } });
  const data: Float32Array = r.output("OUTPUT0", "FP32").data;
  // @ts-expect-error the data type argument is needed
  r.output("OUTPUT0");
  console.log(data);
}
