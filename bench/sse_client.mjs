// The streaming load generator of bench/openai_stream.ts: N clients, each on its own keep-alive
// connection, open the same Server-Sent Events stream back to back for a bounded time, read every
// event and count the tokens in it. One client for every route, so that the routes differ only in
// what the server does: each event's `data:` is parsed as JSON (except `[DONE]`), and a token is an
// event carrying text (`text_output` of a KServe generate_stream response, or a choice's `text` or
// `delta.content` of an OpenAI chunk). Plain Node ESM, node:http only (a separate process, so that
// it does not share the server's event loop).
//
// Input: one JSON argument { port, path, body (a string), concurrency, seconds, warmup, tokens (how
// many each stream must carry), done (whether the stream must end with `data: [DONE]`) }. Output:
// one JSON line { streams, tokens, errors, seconds, tokensPerSecond, streamsPerSecond,
// firstTokenP50Us, streamP50Us, streamP99Us, cpuUsPerToken (its own CPU time per token), firstError }.
import http from "node:http";
import process from "node:process";

const spec = JSON.parse(process.argv[2]);
const body = Buffer.from(spec.body, "utf8");
const agent = new http.Agent({ keepAlive: true, maxSockets: spec.concurrency });
const headers = {
  "content-type": "application/json",
  "content-length": String(body.byteLength),
  accept: "text/event-stream",
};

/** The tokens one event carries, or an error message. */
function tokensIn(data) {
  if (data === "[DONE]") return { done: true, tokens: 0 };
  let event;
  try {
    event = JSON.parse(data);
  } catch {
    return { error: `not JSON: ${data.slice(0, 200)}` };
  }
  if (event.error !== undefined) return { error: JSON.stringify(event.error).slice(0, 300) };
  if (typeof event.text_output === "string") return { tokens: event.text_output ? 1 : 0 };
  let tokens = 0;
  for (const choice of event.choices ?? []) {
    const text = choice.text ?? choice.delta?.content;
    if (typeof text === "string" && text !== "") tokens++;
  }
  return { tokens };
}

/** One stream: resolves with its token count and timings, or an error message. */
function once() {
  return new Promise((resolve) => {
    const t0 = performance.now();
    let firstAt;
    let tokens = 0;
    let done = false;
    let error;
    let buffer = "";
    const req = http.request(
      { host: "127.0.0.1", port: spec.port, path: spec.path, method: "POST", agent, headers },
      (res) => {
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          buffer += chunk;
          let at;
          while ((at = buffer.indexOf("\n\n")) >= 0) {
            const event = buffer.slice(0, at);
            buffer = buffer.slice(at + 2);
            for (const line of event.split("\n")) {
              if (!line.startsWith("data:")) continue;
              const r = tokensIn(line.slice(5).trimStart());
              if (r.error) error ??= r.error;
              if (r.done) done = true;
              if (r.tokens) {
                firstAt ??= performance.now();
                tokens += r.tokens;
              }
            }
          }
        });
        res.on("end", () => {
          const took = performance.now() - t0;
          if (res.statusCode !== 200) error ??= `status ${res.statusCode}: ${buffer.slice(0, 200)}`;
          else if (tokens !== spec.tokens) error ??= `${tokens} tokens, not ${spec.tokens}`;
          else if (spec.done && !done) error ??= "no [DONE] at the end";
          resolve({ tokens, error, took, first: (firstAt ?? performance.now()) - t0 });
        });
        res.on("error", (e) => resolve({ tokens, error: String(e), took: 0, first: 0 }));
      },
    );
    req.on("error", (e) => resolve({ tokens: 0, error: String(e), took: 0, first: 0 }));
    req.end(body);
  });
}

// Warm up every connection.
await Promise.all(
  Array.from({ length: spec.concurrency }, async () => {
    for (let i = 0; i < spec.warmup; i++) await once();
  }),
);

const took = [];
const first = [];
let tokens = 0;
let errors = 0;
let firstError;
const start = performance.now();
const cpu0 = process.cpuUsage();
const end = start + spec.seconds * 1000;
await Promise.all(
  Array.from({ length: spec.concurrency }, async () => {
    while (performance.now() < end) {
      const r = await once();
      tokens += r.tokens;
      took.push(r.took);
      first.push(r.first);
      if (r.error !== undefined) {
        errors++;
        firstError ??= r.error;
      }
    }
  }),
);
const seconds = (performance.now() - start) / 1000;
const cpu = process.cpuUsage(cpu0);
const pick = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] * 1000;
};
agent.destroy();
console.log(JSON.stringify({
  streams: took.length,
  tokens,
  errors,
  seconds,
  tokensPerSecond: tokens / seconds,
  streamsPerSecond: took.length / seconds,
  firstTokenP50Us: pick(first, 0.5),
  streamP50Us: pick(took, 0.5),
  streamP99Us: pick(took, 0.99),
  // This process's CPU time per token of the timed run: reading a route's events costs the load
  // generator too, on the same machine as the server.
  cpuUsPerToken: (cpu.user + cpu.system) / Math.max(tokens, 1),
  firstError,
}));
