/**
 * The native response reader (ffi/native/response_reader.ts): a response whose parts it does not
 * copy — a name or id longer than its room, a shape of more than 8 dimensions, an output larger
 * than 4 KiB, outputs past the 16th, BYTES, an empty output — reads the same as without it (with
 * `TRITONFFI_CALLBACKS=js` every response is read field by field, so both paths meet the same
 * assertions); the reader is in use wherever the native callbacks are; and the x86-64 reader's
 * bytes are what the GNU assembler makes of tests/thunk_driver/x86_64_reader_reference.S.
 *
 * @module
 */
import assert from "node:assert/strict";
import process from "node:process";
import { assembledReference, NO_ASSEMBLER } from "./support/assembled.ts";
import { test } from "./support/test.ts";
import { type InferResponse, type Server } from "../mod.ts";
import { loadTriton } from "../ffi/mod.ts";
import { type OutputFields, ResponseFields } from "../ffi/response_fields.ts";
import { RecordLayout } from "../ffi/native/response_record.ts";
import { generateReaderX8664 } from "../ffi/native/x86_64/reader.ts";
import { collect, startServer } from "./support/env.ts";
import { tempRepo } from "./support/temp_repo.ts";

/** An index suffix the real identity backend accepts (it reads the leading digits) that makes a
 * name longer than the reader's room for it (64 bytes). */
const LONG = "7_" + "x".repeat(70);
/** Outputs 8 to 18: past the reader's 16. */
const MANY = Array.from({ length: 11 }, (_, i) => String(8 + i));

function edgesConfig(): string {
  const io = (suffix: string, type: string, dims: string) => [
    `input [ { name: "INPUT${suffix}" data_type: ${type} dims: [ ${dims} ] } ]`,
    `output [ { name: "OUTPUT${suffix}" data_type: ${type} dims: [ ${dims} ] } ]`,
  ];
  return [
    'name: "reader_edges"',
    'backend: "identity"',
    "max_batch_size: 0",
    ...io("0", "TYPE_INT32", "-1"),
    ...io("1", "TYPE_INT32", Array(9).fill("-1").join(", ")),
    ...io("2", "TYPE_INT32", "-1"),
    ...io("3", "TYPE_FP32", "-1"),
    ...io("4", "TYPE_STRING", "-1"),
    ...io(LONG, "TYPE_INT64", "-1"),
    ...MANY.flatMap((s) => io(s, "TYPE_INT16", "1")),
    "instance_group [ { count: 1 kind: KIND_CPU } ]",
    "",
  ].join("\n");
}

async function withEdges(run: (server: Server) => Promise<void>): Promise<void> {
  const repo = tempRepo();
  repo.add("reader_edges", { "config.pbtxt": edgesConfig(), "1/.keep": "" });
  const server = await startServer({
    modelRepository: repo.path,
    modelControlMode: "explicit",
    startupModels: ["reader_edges"],
  });
  try {
    await run(server);
  } finally {
    await server.stop();
    repo.remove();
  }
}

test("a response the native reader copies only in part reads as one read field by field", async () => {
  await withEdges(async (server) => {
    const large = new Int32Array(2000).map((_, i) => i * 3 - 1000); // 8000 bytes
    const nine = new Int32Array(6).map((_, i) => i + 1);
    const inputs: Record<string, unknown> = {
      INPUT0: new Int32Array([1, -2, 3]),
      INPUT1: { dtype: "INT32", shape: [1, 1, 1, 1, 1, 1, 1, 2, 3], data: nine },
      INPUT2: large,
      INPUT3: new Float32Array(0),
      INPUT4: { dtype: "BYTES", shape: [2], data: ["héllo", new Uint8Array([0, 255])] },
      [`INPUT${LONG}`]: new BigInt64Array([-(2n ** 40n), 7n]),
    };
    for (const s of MANY) inputs[`INPUT${s}`] = new Int16Array([Number(s) * -100]);
    const id = "request-" + "i".repeat(200); // longer than the reader's 128 bytes
    const model = server.model("reader_edges");
    for (let round = 0; round < 3; round++) { // the same names again: the string cache answers
      const [r] = await collect(model.infer({ inputs: inputs as never, id }));
      assert.equal(r.id, id);
      assert.equal(r.model.name, "reader_edges");
      assert.equal(r.model.version, 1);
      const o = r.outputs;
      assert.deepEqual(
        Object.keys(o).sort(),
        Object.keys(inputs).map((k) => "OUT" + k.slice(2)).sort(),
      );
      assert.deepEqual(Array.from(o.OUTPUT0.data as Int32Array), [1, -2, 3]);
      assert.deepEqual(o.OUTPUT0.shape, [3]);
      assert.deepEqual(o.OUTPUT1.shape, [1, 1, 1, 1, 1, 1, 1, 2, 3]);
      assert.deepEqual(Array.from(o.OUTPUT1.data as Int32Array), [1, 2, 3, 4, 5, 6]);
      assert.deepEqual(o.OUTPUT2.data, large);
      assert.equal(o.OUTPUT3.dtype, "FP32");
      assert.deepEqual(o.OUTPUT3.shape, [0]);
      assert.equal((o.OUTPUT3.data as Float32Array).length, 0);
      const bytes = o.OUTPUT4.data as Uint8Array[];
      assert.equal(new TextDecoder().decode(bytes[0]), "héllo");
      assert.deepEqual(Array.from(bytes[1]), [0, 255]);
      assert.deepEqual(Array.from(o[`OUTPUT${LONG}`].data as BigInt64Array), [-(2n ** 40n), 7n]);
      for (const s of MANY) {
        assert.deepEqual(Array.from(o[`OUTPUT${s}`].data as Int16Array), [Number(s) * -100]);
      }
      for (const t of Object.values(o)) assert.equal(t.memoryType, "CPU");
      r.dispose();
    }
  });
});

/** An output's values, comparable across readers: the bytes by content, the buffer by address. */
function plain(lib: { ffi: { address(p: never): number } }, o: OutputFields) {
  const { bytes, base, inPlace: _, ...rest } = o;
  return { ...rest, base: lib.ffi.address(base as never), bytes: bytes && Array.from(bytes) };
}

test("the record and the field-by-field reads give the same values, response by response", {
  skip: process.env.TRITONFFI_CALLBACKS === "js" && "the JS callbacks read field by field only",
}, async () => {
  const lib = await loadTriton();
  const fields = lib.binding.responses;
  if (!fields.hasReader) return; // no native reader on this platform: nothing to compare
  const recorded = ResponseFields.prototype.recorded;
  let compared = 0;
  ResponseFields.prototype.recorded = function (response) {
    const read = recorded.call(this, response);
    if (read !== undefined && read.error === undefined) {
      assert.deepEqual(read.model, this.model(response));
      assert.equal(read.id, this.id(response));
      if (read.parameters !== undefined) {
        assert.deepEqual(read.parameters, this.parameters(response));
      }
      if (read.outputs !== undefined) {
        assert.deepEqual(
          read.outputs.map((o) => plain(lib, o)),
          this.outputs(response).map((o) => plain(lib, o)),
        );
      }
      compared++;
    }
    return read;
  };
  try {
    await withEdges(async (server) => {
      const inputs: Record<string, unknown> = {
        INPUT0: new Int32Array([1, -2, 3]),
        INPUT1: {
          dtype: "INT32",
          shape: [1, 1, 1, 1, 1, 1, 1, 2, 3],
          data: new Int32Array(6).map((_, i) => i),
        },
        INPUT2: new Int32Array(2000).map((_, i) => i * 7),
        INPUT3: new Float32Array([0.5, -1.25]),
        INPUT4: { dtype: "BYTES", shape: [2], data: ["héllo", new Uint8Array([0, 255])] },
        [`INPUT${LONG}`]: new BigInt64Array([-(2n ** 40n), 7n]),
      };
      for (const s of MANY) inputs[`INPUT${s}`] = new Int16Array([Number(s)]);
      const model = server.model("reader_edges");
      for (const id of ["", "short", "r".repeat(200)]) {
        const [r] = await collect(model.infer({ inputs: inputs as never, id }));
        r.dispose();
      }
    });
  } finally {
    ResponseFields.prototype.recorded = recorded;
  }
  assert.equal(compared, 3);
});

test("the native reader reads the identity backend's parameters, of every type", async () => {
  await withEdges(async (server) => {
    const inputs: Record<string, unknown> = {
      INPUT0: new Int32Array([5]),
      INPUT1: { dtype: "INT32", shape: [1, 1, 1, 1, 1, 1, 1, 1, 1], data: new Int32Array([1]) },
      INPUT2: new Int32Array([1]),
      INPUT3: new Float32Array([0.5]),
      INPUT4: ["a"],
      [`INPUT${LONG}`]: new BigInt64Array([1n]),
    };
    for (const s of MANY) inputs[`INPUT${s}`] = new Int16Array([1]);
    const [r] = await collect(server.model("reader_edges").infer({ inputs: inputs as never }));
    assert.equal(r.id, "");
    assert.deepEqual(r.parameters, {
      param0: "an example string parameter",
      param1: 42n,
      param2: false,
      param3: 123.123,
    });
    r.dispose();
  });
});

test("small outputs view pooled buffers through their offsets; copy() has a buffer of its own", async () => {
  await withEdges(async (server) => {
    const inputs: Record<string, unknown> = {
      INPUT0: new Int32Array([1, 2, 3]),
      INPUT1: { dtype: "INT32", shape: [1, 1, 1, 1, 1, 1, 1, 1, 1], data: new Int32Array([4]) },
      INPUT2: new Int32Array([5, 6]),
      INPUT3: new Float32Array([0.25]),
      INPUT4: ["b"],
      [`INPUT${LONG}`]: new BigInt64Array([8n]),
    };
    for (const s of MANY) inputs[`INPUT${s}`] = new Int16Array([2]);
    let kept: InferResponse | undefined;
    for await (const r of server.model("reader_edges").infer({ inputs: inputs as never })) kept = r;
    const r = kept!;
    const a = r.outputs.OUTPUT0.data as Int32Array;
    const b = r.outputs.OUTPUT2.data as Int32Array;
    // Small copies share slabs: this response's few hundred bytes of outputs lie in one slab, or
    // two where they reached the end of one (the pool is the process's, so earlier tests decide
    // how full it is).
    const slabs = new Set(
      Object.values(r.outputs).flatMap((o) => ArrayBuffer.isView(o.data) ? [o.data.buffer] : []),
    );
    assert.ok(slabs.size <= 2, `${slabs.size} slabs for one response's small outputs`);
    assert.equal(b.buffer.byteLength, a.buffer.byteLength, "both in slabs of one size");
    assert.ok(a.buffer.byteLength > a.byteLength);
    assert.equal(a.byteOffset % 8, 0);
    assert.deepEqual(Array.from(new Int32Array(a.buffer, a.byteOffset, a.length)), [1, 2, 3]);
    const own = r.outputs.OUTPUT0.copy().data as Int32Array;
    assert.equal(own.buffer.byteLength, 12);
    assert.deepEqual(Array.from(own), [1, 2, 3]);
    r.dispose();
  });
});

test("with the native callbacks, responses go through the native reader", async () => {
  const lib = await loadTriton();
  if (lib.binding.callbacks.nativePath.kind === "none") {
    assert.equal(lib.binding.responseReader, undefined);
    return;
  }
  const reader = lib.binding.responseReader;
  assert.ok(reader, "the reader could not be made");
  const server = await startServer({
    modelControlMode: "explicit",
    startupModels: ["identity_int32"],
  });
  try {
    const stream = server.model("identity_int32").infer({
      inputs: { INPUT0: { dtype: "INT32", shape: [1, 16], data: new Int32Array(16).fill(9) } },
      id: "seen-by-the-reader",
    });
    const r = (await stream.next()).value!;
    // The record holds what the reader copied of the response just delivered.
    assert.equal(
      new TextDecoder().decode(reader.u8.subarray(RecordLayout.ID_COPY, RecordLayout.ID_COPY + 18)),
      "seen-by-the-reader",
    );
    assert.deepEqual(Array.from(r.outputs.OUTPUT0.data as Int32Array), Array(16).fill(9));
    r.dispose();
    await stream.return(undefined);
  } finally {
    await server.stop();
  }
});

/** The addresses tests/thunk_driver/x86_64_reader_reference.S was assembled with. */
const READER_TARGETS = {
  responseError: 0x00007f0000011000n,
  outputCount: 0x00007f0000012000n,
  output: 0x00007f0000013000n,
  model: 0x00007f0000014000n,
  id: 0x00007f0000015000n,
  parameterCount: 0x00007f0000016000n,
  parameter: 0x00007f0000017000n,
  memcpy: 0x00007f0000018000n,
  memccpy: 0x00007f0000019000n,
};

test("x86-64 reader: the generated bytes are what the GNU assembler makes of the reference", (t) => {
  const expected = assembledReference("x86_64_reader_reference");
  if (!expected) {
    t.skip(NO_ASSEMBLER);
    return;
  }
  const got = Array.from(generateReaderX8664(READER_TARGETS));
  const first = got.findIndex((b, i) => b !== expected[i]);
  assert.equal(first, -1, `first difference at offset 0x${first.toString(16)}`);
  assert.equal(got.length, expected.length);
});
