/**
 * Run by bad_input.test.ts in a child process with one of the binding's environment settings
 * (`TRITONFFI_CALLBACKS`, …) set to a value it does not take: starts a server and runs one
 * inference, then prints one JSON line, `{ "ok": true }` or the error's `name`, `code` and
 * `message`.
 *
 * @module
 */
import { TritonError } from "../../mod.ts";
import { startServer } from "./env.ts";

let line: Record<string, unknown>;
try {
  await using server = await startServer({
    modelControlMode: "explicit",
    startupModels: ["identity_int32"],
  });
  using _ = await server.model("identity_int32").inferOne({
    inputs: { INPUT0: { dtype: "INT32", shape: [1, 2], data: new Int32Array([1, 2]) } },
  });
  line = { ok: true };
} catch (e) {
  line = e instanceof Error
    ? { name: e.name, code: e instanceof TritonError ? e.code : undefined, message: e.message }
    : { thrown: String(e) };
}
console.log(JSON.stringify(line));
