// --auth-refusal-limit (the fourth probe's row 8: 401s were never counted, so credentials could
// be guessed without limit): an address gets the allowance's 401s, then 429s that check no
// credentials, whether counted in this process or in the store two processes share.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeys } from "../../src/auth/api-keys.js";
import { GatewayMetrics } from "../../src/telemetry/metrics.js";
import { apiKeysFile } from "../helpers/api-keys-file.js";
import type { ApiKeysFile } from "../helpers/api-keys-file.js";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";
import { startTestGateway } from "../helpers/gateway.js";
import type { TestGateway } from "../helpers/gateway.js";
import { startRedis } from "../helpers/redis-server.js";
import type { RedisUnderTest } from "../helpers/redis-server.js";

const KEY = "reader-key-0123456789abcdef";
const GUESS = "a-guessed-key";

describe("refused credentials counted in this process", () => {
  let keys: ApiKeysFile;
  let gateway: TestGateway;
  let metrics: GatewayMetrics;

  beforeAll(async () => {
    keys = await apiKeysFile([{ name: "reader", key: KEY, scopes: ["jobs:read"] }]);
    metrics = new GatewayMetrics();
    gateway = await startTestGateway({ access: { apiKeys: new ApiKeys(keys.file) }, authRefusalLimit: "3/m", metrics });
  });

  afterAll(async () => {
    await gateway.close();
    await keys.remove();
  });

  const get = (key: string, remoteAddress = "192.0.2.1") => gateway.app.inject({ method: "GET", url: "/v1/jobs", headers: { "x-api-key": key }, remoteAddress });

  it("answers an address 401 three times, then 429 with Retry-After and no challenge, even to the right key", async () => {
    const refused = [];
    for (let i = 0; i < 3; i++) refused.push((await get(`${GUESS}-${String(i)}`)).statusCode);
    expect(refused).toEqual([401, 401, 401]);
    const over = await get(`${GUESS}-3`);
    expect(over.statusCode).toBe(429);
    expect(over.json()).toMatchObject({ code: "RESOURCE_EXHAUSTED" });
    expect(over.json<{ detail: string }>().detail).toContain("refused credentials");
    expect(Number(over.headers["retry-after"])).toBeGreaterThan(0);
    expect(over.headers["www-authenticate"]).toBeUndefined();
    // The right key is not even checked: the address is over its allowance.
    expect((await get(KEY)).statusCode).toBe(429);
    expect((await metrics.registry.getSingleMetricAsString("gateway_auth_refusals_limited_total"))).toContain("gateway_auth_refusals_limited_total 2");
  });

  it("leaves another address its own allowance", async () => {
    expect((await get(GUESS, "192.0.2.2")).statusCode).toBe(401);
    expect((await get(KEY, "192.0.2.2")).statusCode).toBe(200);
  });

  it("never refuses an open route", async () => {
    expect((await gateway.app.inject({ method: "GET", url: "/healthz", remoteAddress: "192.0.2.1" })).statusCode).toBe(200);
  });
});

describe("refused credentials counted in the store two processes share", () => {
  let redis: RedisUnderTest;
  let keys: ApiKeysFile;
  let gateways: StartedCommand[];

  beforeAll(async () => {
    redis = await startRedis();
    keys = await apiKeysFile([{ name: "reader", key: KEY, scopes: ["jobs:read"] }]);
    const args = ["--api-keys", keys.file, "--auth-refusal-limit", "3/m", "--rate-limit-store", redis.url];
    gateways = await Promise.all([startCommand(args), startCommand(args)]);
  }, 30_000);

  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await redis.kill();
    await keys.remove();
  });

  const get = async (gateway: StartedCommand | undefined, key: string): Promise<number> =>
    (await fetch(`${gateway?.url ?? ""}/v1/jobs`, { headers: { "x-api-key": key } })).status;

  it("gives the address three 401s across both, then 429s from each, the right key included", async () => {
    const [a, b] = gateways;
    expect([await get(a, GUESS), await get(a, GUESS), await get(b, GUESS)]).toEqual([401, 401, 401]);
    // b saw the allowance reached; a learns it from the count of its next refusal, answered 429.
    expect([await get(b, GUESS), await get(a, GUESS)]).toEqual([429, 429]);
    expect([await get(a, KEY), await get(b, KEY)]).toEqual([429, 429]);
  });
});
