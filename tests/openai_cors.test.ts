/**
 * CORS on the OpenAI service (`corsOrigins`): preflights and answers seen through the handler,
 * header by header; and a real browser (headless Chromium, `/usr/bin/chromium` or
 * `$CHROMIUM`) loading a page from one origin that calls the service on another, streaming and
 * not, with an API key header a restricted API asks for — allowed where its origin is listed,
 * kept from the page where it is not. The browser test skips, saying so, where Chromium is absent.
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe } from "node:test";
import { test } from "./support/test.ts";
import { type Server, TritonError } from "../mod.ts";
import { openaiHandler, type OpenAIOptions, serveOpenAI } from "../openai.ts";
import { startServer } from "./support/env.ts";

const MODELS: OpenAIOptions["models"] = { tiny_llm: { mapping: "vllm" } };

let server: Server;
before(async () => {
  server = await startServer({ modelControlMode: "explicit", startupModels: ["tiny_llm"] });
});
after(async () => {
  await server?.stop();
});

const PAGE = "http://127.0.0.1:5173";

/** A preflight from `origin` for a POST with `headers`. */
function preflight(origin: string, headers = "content-type"): Request {
  return new Request("http://localhost/v1/chat/completions", {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": headers,
    },
  });
}

const chatBody = JSON.stringify({
  model: "tiny_llm",
  messages: [{ role: "user", content: "hello there" }],
  max_tokens: 4,
});

describe("through the handler", () => {
  test("a listed origin: the preflight is 204 with the methods and headers asked", async () => {
    const handle = openaiHandler(server, { models: MODELS, corsOrigins: [PAGE] });
    const r = await handle(preflight(PAGE, "content-type, authorization"));
    assert.equal(r.status, 204);
    assert.equal(r.headers.get("access-control-allow-origin"), PAGE);
    assert.equal(r.headers.get("access-control-allow-methods"), "GET,POST");
    assert.equal(r.headers.get("access-control-allow-headers"), "content-type,authorization");
    assert.equal(r.headers.get("access-control-max-age"), "600");
    assert.match(r.headers.get("vary") ?? "", /Origin/);
    // The answer, and an error, carry the origin too.
    const ok = await handle(
      new Request("http://localhost/v1/chat/completions", {
        method: "POST",
        headers: { origin: PAGE, "content-type": "application/json" },
        body: chatBody,
      }),
    );
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get("access-control-allow-origin"), PAGE);
    assert.equal((await ok.json()).choices[0].message.content, " <|user|> hello there <|end|>");
    const missing = await handle(
      new Request("http://localhost/v1/models/nope", { headers: { origin: PAGE } }),
    );
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get("access-control-allow-origin"), PAGE);
    assert.equal((await missing.json()).error.code, "model_not_found");
  });

  test("an origin not listed gets no CORS headers; without corsOrigins OPTIONS is 405", async () => {
    const handle = openaiHandler(server, { models: MODELS, corsOrigins: [PAGE] });
    const other = "http://localhost:5173";
    const r = await handle(preflight(other));
    assert.equal(r.headers.get("access-control-allow-origin"), null);
    const get = await handle(
      new Request("http://localhost/v1/models", { headers: { origin: other } }),
    );
    assert.equal(get.status, 200);
    assert.equal(get.headers.get("access-control-allow-origin"), null);
    // An OPTIONS that is no preflight is the service's to answer.
    assert.equal(
      (await handle(new Request("http://localhost/v1/models", { method: "OPTIONS" })))
        .status,
      405,
    );
    const closed = openaiHandler(server, { models: MODELS });
    const none = await closed(preflight(PAGE));
    assert.equal(none.status, 405);
    assert.equal(none.headers.get("access-control-allow-origin"), null);
  });

  test('"*" allows any origin; a preflight needs no restricted API\'s header', async () => {
    const handle = openaiHandler(server, {
      models: MODELS,
      corsOrigins: ["*"],
      restrictedApis: { "model-list": { header: "api-key", value: "secret" } },
    });
    const r = await handle(preflight("https://anywhere.example", "api-key"));
    assert.equal(r.status, 204);
    assert.equal(r.headers.get("access-control-allow-origin"), "*");
    assert.equal(r.headers.get("access-control-allow-headers"), "api-key");
    const denied = await handle(
      new Request("http://localhost/v1/models", {
        headers: { origin: "https://anywhere.example" },
      }),
    );
    assert.equal(denied.status, 403);
    assert.equal(denied.headers.get("access-control-allow-origin"), "*");
  });

  test("corsOrigins must be origins: INVALID_ARG naming the entry", () => {
    for (
      const [bad, at] of [
        [["http://localhost:5173/"], "corsOrigins[0]"],
        [[PAGE, "localhost:5173"], "corsOrigins[1]"],
        [["https://ui.example.com/app"], "corsOrigins[0]"],
        [[7], "corsOrigins[0]"],
        ["*", "corsOrigins must be a list"],
      ] as const
    ) {
      assert.throws(
        () => openaiHandler(server, { models: MODELS, corsOrigins: bad as unknown as string[] }),
        (e) => e instanceof TritonError && e.code === "INVALID_ARG" && e.message.includes(at),
      );
    }
  });
});

// ---------------------------------------------------------------------------------------------
// A real browser.

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

/** The page: calls `api` (non-streaming, then streaming) with the headers a web UI sends, and
 * posts what it saw to `/result` of its own origin. */
function page(api: string): string {
  return `<!doctype html><meta charset="utf-8"><title>cors</title><script>
(async () => {
  let report;
  try {
    const headers = { "content-type": "application/json", "api-key": "secret" };
    const body = (stream) => JSON.stringify({ model: "tiny_llm", stream, max_tokens: 4,
      messages: [{ role: "user", content: "hello there" }] });
    const r = await fetch(${JSON.stringify(api)} + "/v1/chat/completions",
      { method: "POST", headers, body: body(false) });
    const text = (await r.json()).choices[0].message.content;
    const s = await fetch(${JSON.stringify(api)} + "/v1/chat/completions",
      { method: "POST", headers, body: body(true) });
    let streamed = "";
    for (const line of (await s.text()).split("\\n")) {
      if (line.startsWith("data: {")) streamed += JSON.parse(line.slice(6)).choices[0]?.delta?.content ?? "";
    }
    report = { ok: true, status: r.status, text, streamed };
  } catch (e) {
    report = { ok: false, error: String(e) };
  }
  await fetch("/result", { method: "POST", body: JSON.stringify(report) });
})();
</script>`;
}

/** A page server on 127.0.0.1 (reachable as 127.0.0.1 and as localhost: two origins) whose
 * reports arrive in order. */
async function pageServer(api: () => string) {
  const reports: unknown[] = [];
  let wake: (() => void) | undefined;
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === "POST" && req.url === "/result") {
      let data = "";
      req.on("data", (c) => (data += c));
      req.on("end", () => {
        reports.push(JSON.parse(data));
        wake?.();
        res.end();
      });
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(page(api()));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const port = (http.address() as AddressInfo).port;
  const next = async (timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (reports.length === 0) {
      if (Date.now() > deadline) throw new Error("the page reported nothing");
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 200);
      });
    }
    return reports.shift();
  };
  return { port, next, close: () => new Promise((resolve) => http.close(resolve)) };
}

/** Ends the browser started with `profile` and its helper processes, then removes the profile. */
async function endBrowser(
  chromium: ReturnType<typeof spawn>,
  exited: Promise<unknown>,
  profile: string,
): Promise<void> {
  try {
    process.kill(-chromium.pid!, "SIGTERM"); // its process group: the browser and its helpers
  } catch {
    chromium.kill("SIGTERM");
  }
  await exited;
  // Its helpers may still be writing the profile for a moment after the browser exits.
  for (let attempt = 0;; attempt++) {
    try {
      rmSync(profile, { recursive: true, force: true });
      return;
    } catch (e) {
      if (attempt === 20) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Runs headless Chromium on `url` until `done` settles, then ends it. */
async function browse<T>(url: string, done: Promise<T>): Promise<T> {
  const profile = mkdtempSync(join(tmpdir(), "tritonffi-chromium-"));
  const chromium = spawn(CHROMIUM, [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    `--user-data-dir=${profile}`,
    url,
  ], { stdio: "ignore", detached: true }); // a process group of its own, its helpers in it
  const exited = new Promise((resolve) => chromium.on("exit", resolve));
  try {
    return await done;
  } finally {
    await endBrowser(chromium, exited, profile);
  }
}

test(
  "a page of a listed origin calls the service from a browser; one not listed is kept out",
  {
    skip: existsSync(CHROMIUM)
      ? false
      : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM)`,
  },
  async () => {
    // The page's server first (its origin goes into corsOrigins), then the service it calls.
    let apiUrl = "";
    const site = await pageServer(() => apiUrl);
    const api = await serveOpenAI(server, {
      port: 0,
      models: MODELS,
      restrictedApis: { inference: { header: "api-key", value: "secret" } },
      corsOrigins: [`http://127.0.0.1:${site.port}`],
    });
    apiUrl = api.url;
    const pagePort = site.port;
    try {
      const allowed = await browse(`http://127.0.0.1:${pagePort}/`, site.next(60_000));
      assert.deepEqual(allowed, {
        ok: true,
        status: 200,
        text: " <|user|> hello there <|end|>",
        streamed: " <|user|> hello there <|end|>",
      });
      // The same page from another origin (localhost is not 127.0.0.1 to a browser).
      const refused = await browse(`http://localhost:${pagePort}/`, site.next(60_000)) as {
        ok: boolean;
        error: string;
      };
      assert.equal(refused.ok, false);
      assert.match(refused.error, /TypeError/);
    } finally {
      await site.close();
      await api.close();
    }
  },
);
