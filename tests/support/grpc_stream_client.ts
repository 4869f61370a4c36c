/**
 * A gRPC client process that opens a ModelStreamInfer stream to `argv[2]` (host:port), sends one
 * long repeat_int32 request, prints "first" when its first response comes and then waits to be
 * killed: tests/serve_grpc.test.ts kills it to see a client go away mid-stream.
 */
import process from "node:process";
import * as grpc from "@grpc/grpc-js";
import { serviceDefinitions } from "../../serving/kserve/grpc/definitions.ts";
import { repeatRequest } from "./grpc_requests.ts";

const Client = grpc.makeGenericClientConstructor(serviceDefinitions().inference, "Inference");
const client = new Client(process.argv[2], grpc.credentials.createInsecure()) as
  & grpc.Client
  & Record<string, () => grpc.ClientDuplexStream<unknown, unknown>>;
const stream = client.ModelStreamInfer();
const n = 200;
stream.on("data", () => console.log("first"));
stream.on("error", () => {});
stream.write(repeatRequest(new Array(n).fill(0), 50));

setInterval(() => {}, 1000); // until killed
