// The HTTP load generator of bench/http_load.ts: N clients, each on its own keep-alive connection,
// send the same POST back to back for a bounded time and time each response. Plain Node ESM,
// node:http only (a separate process, so that it does not share the server's event loop).
//
// Input: one JSON argument { port, method, path, body (base64), headers, concurrency, seconds,
// warmup, expect (a string every response body must contain) }. Output: one JSON line { count, errors,
// seconds, perSecond, p50Us, p99Us, firstError }.
import http from "node:http";
import process from "node:process";

const spec = JSON.parse(process.argv[2]);
const body = Buffer.from(spec.body, "base64");
const agent = new http.Agent({ keepAlive: true, maxSockets: spec.concurrency });
const headers = body.byteLength > 0
  ? { ...spec.headers, "content-length": String(body.byteLength) }
  : spec.headers;

function once() {
  return new Promise((resolve) => {
    const req = http.request(
      { host: "127.0.0.1", port: spec.port, path: spec.path, method: spec.method, agent, headers },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("latin1");
          const ok = res.statusCode === 200 && text.includes(spec.expect);
          resolve(ok ? undefined : `${res.statusCode}: ${text.slice(0, 200)}`);
        });
        res.on("error", (e) => resolve(String(e)));
      },
    );
    req.on("error", (e) => resolve(String(e)));
    req.end(body.byteLength > 0 ? body : undefined);
  });
}

// Warm up every connection.
await Promise.all(
  Array.from({ length: spec.concurrency }, async () => {
    for (let i = 0; i < spec.warmup; i++) await once();
  }),
);

const latencies = [];
let errors = 0;
let firstError;
const start = performance.now();
const end = start + spec.seconds * 1000;
await Promise.all(
  Array.from({ length: spec.concurrency }, async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      const error = await once();
      latencies.push(performance.now() - t0);
      if (error !== undefined) {
        errors++;
        firstError ??= error;
      }
    }
  }),
);
const seconds = (performance.now() - start) / 1000;
latencies.sort((a, b) => a - b);
const pick = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
agent.destroy();
console.log(JSON.stringify({
  count: latencies.length,
  errors,
  seconds,
  perSecond: latencies.length / seconds,
  p50Us: pick(0.5) * 1000,
  p99Us: pick(0.99) * 1000,
  firstError,
}));
