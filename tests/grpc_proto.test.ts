/**
 * The gRPC service definition users are given, proto/grpc_service.proto and proto/health.proto
 * (shipped in the package), parsed with protobufjs, says what the server is built on
 * (serving/kserve/grpc/schema.ts's `protocolRoot()`): the same services and RPCs (request and
 * response types, streaming), the same messages (nested ones included) with the same fields (name, number,
 * type, repeated or map, oneof) and the same enums, neither side holding anything the other lacks;
 * and protoc, where installed, compiles them as the tools users hand them to will.
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { devNull } from "node:os";
import { delimiter, join } from "node:path";
import process from "node:process";
import protobuf from "protobufjs";
import { test } from "./support/test.ts";
import { protocolRoot } from "../serving/kserve/grpc/schema.ts";

const root = decodeURIComponent(new URL("..", import.meta.url).pathname);
const FILES = ["proto/grpc_service.proto", "proto/health.proto"];

/** A reflection object's full name, without protobufjs's leading dot: `inference.ModelConfig`. */
const full = (o: protobuf.ReflectionObject | null | undefined) => o?.fullName.replace(/^\./, "");

/** Everything a namespace declares, by full name, in a form that compares with `deepEqual`. */
function describe(ns: protobuf.NamespaceBase, out: Record<string, unknown> = {}) {
  for (const item of ns.nestedArray) {
    if (item instanceof protobuf.Type) {
      out[full(item)!] = {
        message: item.fieldsArray.map((f) => ({
          name: f.name,
          id: f.id,
          type: full(f.resolvedType) ?? f.type,
          rule: f instanceof protobuf.MapField ? `map<${f.keyType}>` : f.repeated ? "repeated" : "",
          oneof: f.partOf?.name ?? "",
        })).sort((a, b) => a.id - b.id),
      };
    } else if (item instanceof protobuf.Enum) {
      out[full(item)!] = { enum: { ...item.values } };
    } else if (item instanceof protobuf.Service) {
      out[full(item)!] = {
        service: Object.fromEntries(item.methodsArray.map((m) => [m.name, {
          request: full(m.resolvedRequestType),
          requestStream: m.requestStream === true,
          response: full(m.resolvedResponseType),
          responseStream: m.responseStream === true,
        }])),
      };
    }
    if (item instanceof protobuf.Namespace) describe(item, out);
  }
  return out;
}

function loadFiles(): protobuf.Root {
  const files = new protobuf.Root();
  for (const file of FILES) {
    protobuf.parse(readFileSync(root + file, "utf8"), files, { keepCase: true });
  }
  files.resolveAll();
  return files;
}

test("proto/*.proto declare the schema the gRPC server is built on, no more and no less", () => {
  const schema = describe(protocolRoot());
  const files = describe(loadFiles());
  assert.ok(schema["inference.GRPCInferenceService"], "the schema's inference service");
  assert.ok(schema["grpc.health.v1.Health"], "the schema's health service");
  assert.deepEqual(Object.keys(files).sort(), Object.keys(schema).sort(), "the same names");
  for (const name of Object.keys(schema)) assert.deepEqual(files[name], schema[name], name);
});

test("the comparison sees a field renumbered, retyped or renamed in the file", () => {
  const schema = describe(protocolRoot());
  const text = readFileSync(root + FILES[0], "utf8");
  const edits: [string, string][] = [
    ["string id = 3;", "string id = 9;"],
    ["repeated bytes raw_input_contents = 7;", "repeated string raw_input_contents = 7;"],
    ["bool live = 1;", "bool alive = 1;"],
  ];
  for (const [from, to] of edits) {
    assert.ok(text.includes(from), from);
    const changed = new protobuf.Root();
    protobuf.parse(text.replace(from, to), changed, { keepCase: true });
    protobuf.parse(readFileSync(root + FILES[1], "utf8"), changed, { keepCase: true });
    changed.resolveAll();
    assert.notDeepEqual(describe(changed), schema, `${from} -> ${to}`);
  }
});

const protoc = (process.env.PATH ?? "").split(delimiter).map((dir) => join(dir, "protoc"))
  .find((path) => path !== "protoc" && existsSync(path));

test("protoc compiles proto/*.proto", {
  skip: !protoc && "needs protoc (apt-get install protobuf-compiler)",
}, () => {
  const r = spawnSync(protoc!, [
    "-I",
    root + "proto",
    `--descriptor_set_out=${devNull}`,
    ...FILES.map((f) => f.slice("proto/".length)),
  ], {
    encoding: "utf8",
  });
  assert.equal(r.status, 0, `protoc: ${r.error ?? ""}${r.stderr}`);
});
