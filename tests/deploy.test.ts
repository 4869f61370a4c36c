/**
 * The KServe manifests in deploy/: valid YAML (parsed with `yaml`), and consistent with each other
 * and with examples/serve.ts (the port the container listens on is the one probed and exposed; the
 * InferenceService names the ServingRuntime). Nothing here talks to a cluster.
 *
 * @module
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "./support/test.ts";
import { parseAllDocuments } from "yaml";

const root = decodeURIComponent(new URL("..", import.meta.url).pathname);

interface Container {
  name: string;
  image: string;
  env: { name: string; value?: string }[];
  ports: { containerPort: number }[];
  readinessProbe: { httpGet: { path: string; port: number } };
  livenessProbe: { httpGet: { path: string; port: number } };
}

test("deploy/kserve.yaml: a ServingRuntime and an InferenceService that uses it", () => {
  const docs = parseAllDocuments(readFileSync(`${root}deploy/kserve.yaml`, "utf8"));
  assert.ok(Array.isArray(docs), "a YAML stream");
  for (const doc of docs) {
    assert.deepEqual(doc.errors.map((e) => e.message), []);
    assert.deepEqual(doc.warnings.map((e) => e.message), []);
  }
  const [runtime, service] = docs.map((d) => d.toJS());
  assert.equal(runtime.apiVersion, "serving.kserve.io/v1alpha1");
  assert.equal(runtime.kind, "ServingRuntime");
  assert.deepEqual(runtime.spec.protocolVersions, ["v2"]);
  const [container] = runtime.spec.containers as Container[];
  assert.equal(container.name, "kserve-container");
  const env = Object.fromEntries(container.env.map((e) => [e.name, e.value]));
  const port = Number(env.PORT);
  assert.equal(env.HOST, "0.0.0.0", "listens beyond loopback inside the pod");
  assert.equal(env.MODEL_REPOSITORY, "/mnt/models", "where KServe's storage initializer writes");
  assert.deepEqual(container.ports.map((p) => p.containerPort), [port]);
  assert.deepEqual(container.readinessProbe.httpGet, { path: "/v2/health/ready", port });
  assert.deepEqual(container.livenessProbe.httpGet, { path: "/v2/health/live", port });

  assert.equal(service.apiVersion, "serving.kserve.io/v1beta1");
  assert.equal(service.kind, "InferenceService");
  const model = service.spec.predictor.model;
  assert.equal(model.runtime, runtime.metadata.name);
  assert.ok(
    runtime.spec.supportedModelFormats.some((f: { name: string }) =>
      f.name === model.modelFormat.name
    ),
  );
  assert.equal(model.protocolVersion, "v2");
});

test("deploy/Dockerfile runs examples/serve.ts with the environment the runtime sets", () => {
  const dockerfile = readFileSync(`${root}deploy/Dockerfile`, "utf8");
  const cmd = /^CMD (\[[\s\S]*?\])/m.exec(dockerfile);
  assert.ok(cmd, "an exec-form CMD");
  const argv = JSON.parse(cmd[1].replace(/\\\n/g, "")) as string[];
  const script = argv[argv.length - 1];
  assert.ok(existsSync(root + script), argv.join(" "));
  // Node serves HTTP and gRPC alike; Deno's node:http2 can be brought down by a client, and
  // serveGrpc() refuses it without an opt-in.
  assert.equal(argv[0], "./node_modules/.bin/node");
  assert.match(dockerfile, /PORT=8080/);
  // Every top-level file or folder of the repository that the served script reaches through its
  // relative imports (followed to their ends) is copied in.
  const copied = [...dockerfile.matchAll(/^COPY (.+) \S+$/gm)].flatMap((m) => m[1].split(/\s+/));
  const reached = new Set<string>();
  const visit = (file: string) => {
    if (reached.has(file)) return;
    reached.add(file);
    const text = readFileSync(join(root, file), "utf8");
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+\.ts)"/g)) {
      visit(relative(root, resolve(root, dirname(file), m[1])));
    }
  };
  visit(script);
  const tops = new Set([...reached].filter((f) => f !== script).map((f) => f.split("/")[0]));
  assert.ok(tops.has("serving") && tops.has("src") && tops.has("ffi"), [...tops].join(", "));
  for (const top of tops) assert.ok(copied.includes(top), `COPY ${top}: ${copied}`);
});
