// The document as the app generates it, without a Manager: the app is built (never listening)
// on a channel that is never used, so generating needs no network, no data directory and no
// Manager. `npm run openapi` writes it to openapi.yaml; a test compares the two.
import { buildApp } from "./app.js";
import { connectManager } from "norsk-manager-contract/grpc/manager-connection.js";
import { documentYaml } from "./openapi/yaml.js";

export async function generateOpenApiYaml(): Promise<string> {
  // gRPC channels connect lazily: nothing is dialled unless a call is made.
  const connection = connectManager("127.0.0.1:1", { defaultTimeoutMs: 1_000 });
  const app = await buildApp({ connection });
  try {
    await app.ready();
    return documentYaml(app.swagger());
  } finally {
    await app.close();
    connection.close();
  }
}
