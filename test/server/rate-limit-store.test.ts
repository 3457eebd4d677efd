// --rate-limit-store against a real redis-server on loopback (test/helpers/redis-server.ts): two
// gateway processes hold one allowance; a store killed under load, one that accepts and never
// answers, and one that stops answering once connected leave every request served, each with
// a bounded wait, the outage logged once each way and shown by the metrics; a password from a
// file is used and never logged.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";
import { startMainGateway } from "../helpers/gateway.js";
import type { LogLine, MainGateway } from "../helpers/gateway.js";
import { startFreezingProxy, startRedis, startSilentStore } from "../helpers/redis-server.js";
import type { RedisUnderTest } from "../helpers/redis-server.js";

const DOWN = "the rate-limit store cannot be reached; requests are served without the limit until it answers";
const BACK = "the rate-limit store answers again; requests are counted";

async function statuses(url: string, count: number): Promise<number[]> {
  const answers: number[] = [];
  for (let i = 0; i < count; i++) answers.push((await fetch(`${url}/v1/jobs`)).status);
  return answers;
}

function messages(lines: readonly LogLine[], message: string): LogLine[] {
  return lines.filter((line) => line.msg === message);
}

/** A metric's value in the exposition of `metricsUrl`, by its name and labels as written there. */
async function metric(metricsUrl: string, series: string): Promise<number | undefined> {
  const text = await (await fetch(metricsUrl)).text();
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("two gateway processes pointed at one store", () => {
  let redis: RedisUnderTest;
  let gateways: StartedCommand[];

  beforeAll(async () => {
    redis = await startRedis();
    const args = ["--rate-limit", "10/m", "--rate-limit-store", redis.url];
    gateways = await Promise.all([startCommand(args), startCommand(args)]);
  }, 30_000);

  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await redis.kill();
  });

  it("hold one allowance per client: of 20 requests, alternately to each, 10 are served and 10 refused", async () => {
    const answers: number[] = [];
    for (let i = 0; i < 10; i++) for (const gateway of gateways) answers.push(...(await statuses(gateway.url, 1)));
    expect(answers.filter((status) => status === 200)).toHaveLength(10);
    expect(answers.slice(10)).toEqual(Array.from({ length: 10 }, () => 429));
  });
});

describe("a store killed under load, and back", () => {
  let redis: RedisUnderTest;
  let main: MainGateway;
  let label: string;

  beforeAll(async () => {
    redis = await startRedis();
    label = `{store="${redis.url}"}`;
    main = await startMainGateway(["--rate-limit", "5/m", "--rate-limit-store", redis.url]);
  }, 30_000);

  afterAll(async () => {
    await main.close();
    await redis.kill();
  });

  it("limits while it answers", async () => {
    expect(await statuses(main.url, 6)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(await metric(main.gateway.metricsUrl, `gateway_rate_limit_store_up${label}`)).toBe(1);
  });

  it("serves every request once it is killed, logs the outage once, and shows it in the metrics", async () => {
    // Four clients of one address keep asking while the store dies.
    const load = Promise.all(Array.from({ length: 4 }, () => statuses(main.url, 25)));
    await redis.kill();
    const during = (await load).flat();
    const after = await statuses(main.url, 20);
    // Before the kill the client is over its allowance (429); after it, served uncounted.
    expect(new Set(during).size).toBeLessThanOrEqual(2);
    expect(after).toEqual(Array.from({ length: 20 }, () => 200));
    expect(messages(main.lines, DOWN)).toHaveLength(1);
    expect(messages(main.lines, DOWN)[0]).toMatchObject({ level: 40, store: redis.url });
    expect(await metric(main.gateway.metricsUrl, `gateway_rate_limit_store_up${label}`)).toBe(0);
    expect(await metric(main.gateway.metricsUrl, "gateway_rate_limit_uncounted_total")).toBeGreaterThanOrEqual(20);
  });

  it("limits again once it is back, and says so once", async () => {
    await redis.restart();
    // The store restarted empty: the client's allowance starts afresh.
    await expect.poll(async () => (await statuses(main.url, 1))[0], { timeout: 10_000, interval: 100 }).toBe(429);
    expect(await statuses(main.url, 3)).toEqual([429, 429, 429]);
    expect(messages(main.lines, BACK)).toHaveLength(1);
    expect(messages(main.lines, DOWN)).toHaveLength(1);
    expect(await metric(main.gateway.metricsUrl, `gateway_rate_limit_store_up${label}`)).toBe(1);
  });
});

/** Requests made one after another; each must be answered, and all of them before `deadlineMs`. */
async function servedBefore(url: string, count: number, deadlineMs: number): Promise<number[]> {
  const signal = AbortSignal.timeout(deadlineMs);
  const answers: number[] = [];
  for (let i = 0; i < count; i++) answers.push((await fetch(`${url}/v1/jobs`, { signal })).status);
  return answers;
}

// Each request waits for the store at most the command timeout (250 ms), and a store seen
// failing is skipped for two seconds but by one request: 40 requests in a row are answered far
// within 8 s, which a wait of the timeout by each (10 s), let alone an unbounded one, would miss.
const REQUESTS = 40;
const DEADLINE_MS = 8_000;

describe("a store that accepts and never answers", () => {
  it("costs each request a bounded wait: 40 in a row are all served before a generous deadline", async () => {
    const silent = await startSilentStore();
    const main = await startMainGateway(["--rate-limit", "5/m", "--rate-limit-store", silent.url]);
    try {
      expect(await servedBefore(main.url, REQUESTS, DEADLINE_MS)).toEqual(Array.from({ length: REQUESTS }, () => 200));
      expect(silent.accepted()).toBeGreaterThan(0);
      expect(messages(main.lines, DOWN)).toHaveLength(1);
    } finally {
      await main.close();
      await silent.close();
    }
  }, 30_000);
});

describe("a store that stops answering once connected", () => {
  it("costs each request a bounded wait and logs the outage once", async () => {
    const redis = await startRedis();
    const proxy = await startFreezingProxy(redis.port);
    const main = await startMainGateway(["--rate-limit", "5/m", "--rate-limit-store", proxy.url]);
    try {
      expect(await statuses(main.url, 6)).toEqual([200, 200, 200, 200, 200, 429]);
      proxy.freeze();
      expect(await servedBefore(main.url, REQUESTS, DEADLINE_MS)).toEqual(Array.from({ length: REQUESTS }, () => 200));
      expect(messages(main.lines, DOWN)).toHaveLength(1);
      expect(messages(main.lines, DOWN)[0]).toMatchObject({ reason: "Command timed out" });
    } finally {
      await main.close();
      await proxy.close();
      await redis.kill();
    }
  }, 30_000);
});

describe("a store's password", () => {
  const PASSWORD = "s3cret-Store-Pass";
  let redis: RedisUnderTest;
  let dir: string;

  beforeAll(async () => {
    redis = await startRedis({ password: PASSWORD });
    dir = await mkdtemp(join(tmpdir(), "gateway-store-password-"));
    await writeFile(join(dir, "password"), `${PASSWORD}\n`);
  });

  // Each test's client starts with the whole allowance.
  beforeEach(async () => {
    await redis.kill();
    await redis.restart();
  });

  afterAll(async () => {
    await redis.kill();
    await rm(dir, { recursive: true, force: true });
  });

  it("is read from --rate-limit-store-password-file: the store counts (a refused login would leave every request uncounted)", async () => {
    const gateway = await startCommand(["--rate-limit", "3/m", "--rate-limit-store", redis.url, "--rate-limit-store-password-file", join(dir, "password"), "--log-level", "debug"]);
    try {
      expect(await statuses(gateway.url, 4)).toEqual([200, 200, 200, 429]);
    } finally {
      await gateway.stop();
    }
    expect(gateway.lines.join("\n")).not.toContain(PASSWORD);
    expect(gateway.lines.join("\n")).toContain("the rate-limit store answers");
  });

  it("is taken from the URL, which is never logged with it", async () => {
    const url = redis.url.replace("redis://", `redis://:${PASSWORD}@`);
    const gateway = await startCommand(["--rate-limit", "3/m", "--rate-limit-store", url, "--log-level", "debug"]);
    try {
      expect(await statuses(gateway.url, 4)).toEqual([200, 200, 200, 429]);
      expect(await (await fetch(`${gateway.url}/metrics`)).text()).toContain(`gateway_rate_limit_store_up{store="${redis.url}"} 1`);
    } finally {
      await gateway.stop();
    }
    expect(gateway.lines.join("\n")).not.toContain(PASSWORD);
  });

  it("a wrong one leaves requests served, and the log names the store without any password", async () => {
    const url = redis.url.replace("redis://", "redis://:not-the-password@");
    const gateway = await startCommand(["--rate-limit", "3/m", "--rate-limit-store", url]);
    try {
      expect(await statuses(gateway.url, 5)).toEqual([200, 200, 200, 200, 200]);
    } finally {
      await gateway.stop();
    }
    const log = gateway.lines.join("\n");
    expect(log).toContain(DOWN);
    expect(log).not.toContain("not-the-password");
  });

  it("is never quoted by the error of a setting that refuses it", async () => {
    const url = redis.url.replace("redis://", `redis://:${PASSWORD}@`);
    const started = startCommand(["--rate-limit-store", `${url}/x`]);
    await expect(started).rejects.toThrow(/--rate-limit-store/);
    await expect(started).rejects.not.toThrow(PASSWORD);
    const both = startCommand(["--rate-limit-store", url, "--rate-limit-store-password-file", join(dir, "password")]);
    await expect(both).rejects.toThrow(/has a password already/);
    await expect(both).rejects.not.toThrow(PASSWORD);
  });
});
