// The principal reaches the Manager as the gRPC metadata x-gateway-principal, read by a stub
// Manager: the id the credentials proved, percent-encoded beyond printable ASCII; never set by a
// client (Grpc-Metadata-X-Gateway-Principal is a 400 naming the header, and nothing is called);
// absent without authentication; Authorization still forwarded as it came.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ApiKeys } from "../../src/auth/api-keys.js";
import { principalValue } from "../../src/http/grpc-headers.js";
import { gatewayTo } from "../helpers/gateway.js";
import type { GatewayUnderTest } from "../helpers/gateway.js";
import { stubManager } from "../helpers/stub-manager.js";
import type { StubManager } from "../helpers/stub-manager.js";
import { apiKeysFile } from "../helpers/api-keys-file.js";
import type { ApiKeysFile } from "../helpers/api-keys-file.js";

const KEY = "k-ci-2f9e41b07a6c53d8";
const NORDIC_KEY = "k-nordic-81c3e5a0d94f27b6";

describe("x-gateway-principal", () => {
  let keys: ApiKeysFile;
  let manager: StubManager;
  let guarded: GatewayUnderTest;
  let open: GatewayUnderTest;

  beforeAll(async () => {
    keys = await apiKeysFile([
      { name: "ci", key: KEY, scopes: ["jobs:write"] },
      { name: "bjørn 100%", key: NORDIC_KEY, scopes: ["jobs:write"] },
    ]);
    manager = await stubManager({ deleteJob: () => ({}) });
    [guarded, open] = await Promise.all([gatewayTo(manager.address, { access: { apiKeys: new ApiKeys(keys.file) } }), gatewayTo(manager.address)]);
  });

  afterAll(async () => {
    await Promise.all([guarded.close(), open.close()]);
    manager.close();
    await keys.remove();
  });

  beforeEach(() => {
    manager.reset();
  });

  function remove(gateway: GatewayUnderTest, headers: Record<string, string>) {
    return gateway.app.inject({ method: "DELETE", url: "/v1/jobs/j", headers });
  }

  it("carries the authenticated principal's id to the Manager, and Authorization as it came", async () => {
    const response = await remove(guarded, { "x-api-key": KEY, authorization: "Bearer opaque-for-the-manager" });
    expect(response.statusCode).toBe(204);
    expect(manager.calls.map((call) => call.method)).toEqual(["DeleteJob"]);
    const metadata = manager.calls[0]?.metadata;
    expect(metadata?.get("x-gateway-principal")).toBe("ci");
    expect(metadata?.get("authorization")).toBe("Bearer opaque-for-the-manager");
  });

  it("percent-encodes an id beyond printable ASCII, and a '%', so that it decodes back to itself", async () => {
    const response = await remove(guarded, { "x-api-key": NORDIC_KEY });
    expect(response.statusCode).toBe(204);
    const value = manager.calls[0]?.metadata.get("x-gateway-principal");
    expect(value).toBe("bj%C3%B8rn 100%25");
    expect(decodeURIComponent(value ?? "")).toBe("bjørn 100%");
    expect(principalValue("CN=ci,O=Example")).toBe("CN=ci,O=Example");
  });

  it("refuses a client's Grpc-Metadata-X-Gateway-Principal with a 400 naming the header, and calls nothing", async () => {
    for (const gateway of [guarded, open]) {
      const response = await remove(gateway, { "x-api-key": KEY, "grpc-metadata-x-gateway-principal": "admin" });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        errors: [{ header: "grpc-metadata-x-gateway-principal", message: "cannot set x-gateway-principal: the gateway sets it to the authenticated principal" }],
      });
    }
    expect(manager.calls).toEqual([]);
  });

  it("sends no principal without authentication", async () => {
    const response = await remove(open, { authorization: "Bearer opaque-for-the-manager" });
    expect(response.statusCode).toBe(204);
    const metadata = manager.calls[0]?.metadata;
    expect(metadata?.has("x-gateway-principal")).toBe(false);
    expect(metadata?.get("authorization")).toBe("Bearer opaque-for-the-manager");
  });
});
