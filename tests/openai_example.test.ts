/**
 * examples/openai.ts (`npm run serve:openai`) starts on this runtime, on the core the suite runs
 * against, and answers OpenAI's client: the model list, a chat completion through tiny_llm's
 * template, a completion streamed from word_stream (the example's own mapping) and an embedding;
 * a preflight from each origin of `CORS_ORIGINS` allowed; on SIGINT it finishes and exits 0.
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import process from "node:process";
import OpenAI from "openai";
import { test } from "./support/test.ts";
import { checkOpenAIBodies } from "./support/openai_bodies.ts";
import { MODEL_REPOSITORY } from "./support/env.ts";

const script = decodeURIComponent(new URL("../examples/openai.ts", import.meta.url).pathname);

/** The command that runs `script` on this runtime, with what a server needs on Deno. */
function command(): [string, string[]] {
  const deno = (globalThis as { Deno?: { execPath(): string } }).Deno;
  if (deno) {
    return [deno.execPath(), [
      "run",
      "--allow-ffi",
      "--allow-env",
      "--allow-read",
      "--allow-write",
      "--allow-net",
      "--unstable-no-legacy-abort",
      script,
    ]];
  }
  return [process.execPath, [script]];
}

test("examples/openai.ts serves the four models, CORS_ORIGINS' pages, and stops on SIGINT", async () => {
  const [cmd, args] = command();
  // PORT 0: any free port; the example prints the one it got.
  const child = spawn(cmd, args, {
    env: {
      ...process.env,
      PORT: "0",
      MODEL_REPOSITORY,
      CORS_ORIGINS: "http://localhost:5173, http://127.0.0.1:8080",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal }))
  );
  // Every body the client reads, checked against OpenAI's schemas.
  const bodies = checkOpenAIBodies();
  try {
    const deadline = Date.now() + 60_000;
    // Until the whole of what it prints at start has arrived (its last line ends with this).
    while (!out.includes("process.stdout.write(") && Date.now() < deadline) {
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const url = /OpenAI API on (http:\/\/\S+\/v1)/.exec(out)?.[1];
    assert.ok(url, `the example did not say where it listens:\n${out}\n${err}`);
    assert.match(out, /models tiny_llm, tiny_trtllm, word_stream, tiny_embed/);
    assert.match(out, /curl http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions/);
    assert.match(out, /new OpenAI\(\{ baseURL: "http:\/\/127\.0\.0\.1:\d+\/v1"/);

    const client = new OpenAI({ baseURL: url, apiKey: "unused", maxRetries: 0 });
    const models = [];
    for await (const m of client.models.list()) models.push(m.id);
    assert.deepEqual(models.sort(), ["tiny_embed", "tiny_llm", "tiny_trtllm", "word_stream"]);

    const chat = await client.chat.completions.create({
      model: "tiny_llm",
      messages: [{ role: "user", content: "Hello there" }],
      max_tokens: 4,
    });
    assert.equal(chat.choices[0].message.content, " <|user|> Hello there <|end|>");
    assert.equal(chat.choices[0].finish_reason, "length");

    const stream = await client.chat.completions.create({
      model: "word_stream",
      messages: [{ role: "user", content: "one two" }],
      stream: true,
    });
    let text = "";
    for await (const c of stream) text += c.choices[0]?.delta.content ?? "";
    assert.equal(text, " user: one two");

    const embedding = await client.embeddings.create({ model: "tiny_embed", input: "hello" });
    assert.equal(embedding.data[0].embedding.length, 8);
    bodies.restore();
    bodies.assertValid();

    // CORS_ORIGINS: a preflight from each origin it lists is allowed, from another not.
    for (
      const [origin, allowed] of [
        ["http://localhost:5173", true],
        ["http://127.0.0.1:8080", true],
        ["http://localhost:8080", false],
      ] as const
    ) {
      const r = await fetch(`${url}/chat/completions`, {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "POST" },
      });
      await r.body?.cancel();
      assert.equal(r.headers.get("access-control-allow-origin"), allowed ? origin : null, origin);
    }
  } finally {
    bodies.restore();
    // process.kill, not child.kill: Deno's node:child_process reports a child it signalled itself
    // as killed by that signal, whatever the child's exit status.
    process.kill(child.pid!, "SIGINT");
  }
  const { code, signal } = await exited;
  assert.equal(signal, null, `killed by ${signal}:\n${out}\n${err}`);
  assert.equal(code, 0, `exit ${code}:\n${out}\n${err}`);
  assert.match(out, /SIGINT: finishing the requests in flight/);
});
