// npm run bench:auth: what authentication costs. The same GET /v1/jobs/{id} of one job at 50
// connections (autocannon) against three gateway processes in front of one reference Manager,
// differing only in authentication: none (loopback, nothing configured; also with the bearer
// row's Authorization header, which is then only forwarded to the Manager), an API key
// (--api-keys), and a bearer JWT access token (--auth-issuer with --auth-jwks-url; the same
// token on every request, so after the first it comes from the verified-token cache, as for a
// client that reuses its token). The gateways run side by side and are driven in turn, in
// rounds of alternating order, so that the machine's drift falls on all of them alike; round 0 warms them up and is
// not counted. Reported per setting: requests per second and the gateway's CPU time per request
// (user + system, from /proc), medians of the rounds, each as a ratio to no authentication.
//
// The issuer is a loopback server publishing one RS256 key (the algorithm oidc-provider signs
// with by default); this process signs the token with its private key.
//
// Beside the load, which a busy machine makes noisy, the authentication step alone is timed in
// this process: CPU per call of the JWT verifier with the token cached and uncached (the
// cache off), and of the API key lookup, to set against the gateway's CPU per request.
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import autocannon from "autocannon";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import { connectManager } from "norsk-manager-contract/grpc/manager-connection.js";
import { jobFromJson } from "../src/json/index.js";
import { ApiKeys } from "../src/auth/api-keys.js";
import { JwtVerifier } from "../src/auth/jwt.js";
import { cpuSeconds, startGatewayProcess, startManagerProcess } from "./processes.js";
import type { Child } from "./processes.js";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const JOB_ID = "bench-auth";
const API_KEY = "bench-key-3f6c1a9e0b7d4e28";
const AUDIENCE = "https://gateway.bench/api";

interface Setting {
  readonly name: string;
  readonly args: readonly string[];
  readonly headers: Record<string, string>;
}

interface Sample {
  readonly rps: number;
  readonly cpuUsPerRequest: number;
}

async function measure(gateway: Child, headers: Record<string, string>): Promise<Sample> {
  const cpu0 = cpuSeconds(gateway.pid);
  const result = await autocannon({ url: `${gateway.address}/v1/jobs/${JOB_ID}`, connections: CONNECTIONS, duration: SECONDS, headers });
  const cpu = cpuSeconds(gateway.pid) - cpu0;
  if (result.errors + result.non2xx > 0) throw new Error(`${gateway.address}: ${String(result.errors + result.non2xx)} failed requests`);
  return { rps: result.requests.total / result.duration, cpuUsPerRequest: (cpu * 1e6) / result.requests.total };
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
  const dataDir = await mkdtemp(join(tmpdir(), "bench-auth-"));

  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: "bench", alg: "RS256", use: "sig" }] });
  const issuer = createServer((_request, response) => response.writeHead(200, { "content-type": "application/json" }).end(jwks));
  await new Promise<void>((resolve) => issuer.listen(0, "127.0.0.1", resolve));
  const issuerUrl = `http://127.0.0.1:${String((issuer.address() as AddressInfo).port)}`;
  const token = await new SignJWT({ scope: "jobs:read", client_id: "bench" })
    .setProtectedHeader({ alg: "RS256", kid: "bench", typ: "at+jwt" })
    .setIssuer(issuerUrl)
    .setAudience(AUDIENCE)
    .setSubject("bench")
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(privateKey);
  const keyFile = join(dataDir, "api-keys.json");
  await writeFile(keyFile, JSON.stringify([{ name: "bench", sha256: createHash("sha256").update(API_KEY).digest("hex"), scopes: ["jobs:read"] }]));

  const settings: readonly Setting[] = [
    { name: "no authentication", args: [], headers: {} },
    // The same bytes as the bearer row, only forwarded: what carrying the token costs, apart from checking it.
    { name: "none, bearer header forwarded", args: [], headers: { authorization: `Bearer ${token}` } },
    { name: "API key (X-API-Key)", args: ["--api-keys", keyFile], headers: { "x-api-key": API_KEY } },
    {
      name: "bearer JWT, RS256 (cached)",
      args: ["--auth-issuer", issuerUrl, "--auth-audience", AUDIENCE, "--auth-jwks-url", `${issuerUrl}/jwks`],
      headers: { authorization: `Bearer ${token}` },
    },
  ];

  const manager = await startManagerProcess(dataDir);
  const direct = connectManager(manager.address, { defaultTimeoutMs: 10_000 });
  await direct.manager.createJob(jobFromJson({ jobId: JOB_ID, startDateTime: "2026-12-24T18:00:00Z", tags: { env: "bench" } }));
  const gateways: Child[] = [];
  // Each setting has its own gateway, even where two share their flags: rows stay independent.
  const samples = new Map<string, Sample[]>(settings.map((setting) => [setting.name, []]));
  try {
    for (const setting of settings) gateways.push(await startGatewayProcess(manager.address, setting.args));
    for (let round = 0; round <= ROUNDS; round++) {
      // Alternating order: none of them always runs first, or always after the same one.
      const order = [...settings.entries()];
      if (round % 2 === 1) order.reverse();
      for (const [index, setting] of order) {
        const gateway = gateways[index];
        if (gateway === undefined) throw new Error("no gateway");
        const sample = await measure(gateway, setting.headers);
        if (round > 0) samples.get(setting.name)?.push(sample);
      }
    }
  } finally {
    for (const gateway of gateways) await gateway.stop();
    direct.close();
    await manager.stop();
  }

  const steps = await stepCosts(issuerUrl, token, keyFile).finally(async () => {
    issuer.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  const baseline = summary(samples.get(settings[0]?.name ?? "") ?? []);
  console.log(`\nGET /v1/jobs/{id} of one job, ${String(CONNECTIONS)} connections, ${String(SECONDS)} s x ${String(ROUNDS)} rounds (medians); node ${process.version}`);
  console.log(`load average ${execFileSync("cat", ["/proc/loadavg"], { encoding: "utf8" }).split(" ").slice(0, 3).join(" ")}\n`);
  console.log(`${"".padEnd(30)} ${"req/s".padStart(7)} ${"ratio".padStart(6)} ${"CPU µs/req".padStart(11)} ${"ratio".padStart(6)}`);
  for (const setting of settings) {
    const { rps, cpuUsPerRequest } = summary(samples.get(setting.name) ?? []);
    console.log(
      `${setting.name.padEnd(30)} ${rps.toFixed(0).padStart(7)} ${(rps / baseline.rps).toFixed(3).padStart(6)} ${cpuUsPerRequest.toFixed(0).padStart(11)} ${(cpuUsPerRequest / baseline.cpuUsPerRequest).toFixed(3).padStart(6)}`,
    );
  }
  console.log(`\nthe authentication step alone, in this process: CPU µs per call (share of no authentication's ${baseline.cpuUsPerRequest.toFixed(0)} µs per request)`);
  for (const [name, us] of Object.entries(steps)) {
    console.log(`${name.padEnd(30)} ${us.toFixed(1).padStart(8)} µs  ${((100 * us) / baseline.cpuUsPerRequest).toFixed(1).padStart(5)} %`);
  }
}

/** CPU µs per call of each authentication step, in this process (median of 5 batches). */
async function stepCosts(issuerUrl: string, token: string, keyFile: string): Promise<Record<string, number>> {
  const options = { issuer: issuerUrl, audience: AUDIENCE, jwksUrl: `${issuerUrl}/jwks`, clockSkewS: 30 };
  const cached = new JwtVerifier(options);
  const uncached = new JwtVerifier({ ...options, tokenCacheEntries: 0 });
  const keys = new ApiKeys(keyFile);
  await cached.verify(token);
  await uncached.verify(token);
  const perCall = async (calls: number, step: () => unknown): Promise<number> => {
    const batches: number[] = [];
    for (let batch = 0; batch < 5; batch++) {
      const before = process.cpuUsage();
      for (let i = 0; i < calls; i++) await step();
      const used = process.cpuUsage(before);
      batches.push((used.user + used.system) / calls);
    }
    return median(batches);
  };
  return {
    "bearer JWT, cached": await perCall(20_000, () => cached.verify(token)),
    "bearer JWT, not cached": await perCall(500, () => uncached.verify(token)),
    "API key": await perCall(20_000, () => keys.find(API_KEY)),
  };
}

function summary(values: readonly Sample[]): Sample {
  return { rps: median(values.map((v) => v.rps)), cpuUsPerRequest: median(values.map((v) => v.cpuUsPerRequest)) };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

await main();
