// TLS to the Manager, for real: a reference Manager serving TLS with certificates made by
// openssl for this run, requiring client certificates where a case says so, and the built
// gateway command configured by its own flags or environment. Every failure is named in the log
// at start-up and answered as a 503 problem, never a hang.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IN_MEMORY, startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import { makeCertificates } from "../helpers/certificates.js";
import { startCommand } from "../helpers/command.js";
import type { Certificates } from "../helpers/certificates.js";

let certs: Certificates;
/** Requires a client certificate signed by the CA. */
let mtlsManager: RunningManager;
/** TLS, no client certificate asked for. */
let tlsManager: RunningManager;

beforeAll(async () => {
  certs = makeCertificates(["manager.test", "127.0.0.1"]);
  const served = { cert: certs.read(certs.server.cert), key: certs.read(certs.server.key) };
  mtlsManager = await startManager({ port: 0, dataDir: IN_MEMORY, tls: { ...served, clientCa: certs.read(certs.ca.cert) } });
  tlsManager = await startManager({ port: 0, dataDir: IN_MEMORY, tls: served });
});

afterAll(async () => {
  await mtlsManager.close();
  await tlsManager.close();
  certs.remove();
});

interface Outcome {
  readonly readyz: number;
  readonly job: { status: number; type: string | null; body: Record<string, unknown> };
  /** The start-up check's log line. */
  readonly probe: Record<string, unknown> | undefined;
}

/** The start-up check's line among the command's output, parsed; undefined until it comes. */
function probeOf(lines: readonly string[]): Record<string, unknown> | undefined {
  const logged = lines.filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Record<string, unknown>);
  return logged.find((line) => String(line.msg).startsWith("the Manager "));
}

/**
 * Starts the built command with `argv` (and `env` added to its environment), reads /readyz and a
 * job, and reports what the start-up check logged.
 */
async function tryGateway(argv: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Outcome> {
  const gateway = await startCommand([...argv, "--log-level", "info"], { env });
  try {
    const readyz = (await fetch(`${gateway.url}/readyz`)).status;
    const response = await fetch(`${gateway.url}/v1/jobs/secure-1`);
    const job = { status: response.status, type: response.headers.get("content-type"), body: (await response.json()) as Record<string, unknown> };
    await expect.poll(() => probeOf(gateway.lines), { timeout: 10_000 }).toBeDefined();
    return { readyz, job, probe: probeOf(gateway.lines) };
  } finally {
    expect(await gateway.stop()).toBe(0);
  }
}

function expectUnreachable(outcome: Outcome, reason: RegExp): void {
  expect(outcome.readyz).toBe(503);
  expect(outcome.job.status).toBe(503);
  expect(outcome.job.type).toBe("application/problem+json; charset=utf-8");
  expect(outcome.job.body).toMatchObject({ status: 503, code: "UNAVAILABLE" });
  expect(JSON.stringify(outcome.job.body)).not.toMatch(/certificate|ssl|tls/i);
  expect(outcome.probe).toMatchObject({ level: 40, msg: "the Manager cannot be reached", code: "UNAVAILABLE" });
  expect(String(outcome.probe?.reason)).toMatch(reason);
}

describe("the gateway to a Manager over TLS", () => {
  it("serves jobs over mTLS with --manager-ca, --manager-cert, --manager-key and --manager-server-name", async () => {
    const outcome = await tryGateway(["--manager", mtlsManager.address, "--manager-ca", certs.ca.cert, "--manager-cert", certs.client.cert, "--manager-key", certs.client.key, "--manager-server-name", "manager.test"]);
    expect(outcome.readyz).toBe(200);
    expect(outcome.job.status).toBe(404);
    expect(outcome.probe).toMatchObject({ level: 30, msg: "the Manager is serving" });
  });

  it("takes the same settings from the environment", async () => {
    const outcome = await tryGateway([], {
      MANAGER_ADDRESS: mtlsManager.address,
      MANAGER_CA: certs.ca.cert,
      MANAGER_CERT: certs.client.cert,
      MANAGER_KEY: certs.client.key,
      MANAGER_SERVER_NAME: "manager.test",
    });
    expect(outcome.readyz).toBe(200);
    // The start-up check probed the Manager MANAGER_ADDRESS names.
    expect(outcome.probe).toMatchObject({ msg: "the Manager is serving", manager: mtlsManager.address });
  });

  it("with --manager-tls alone, trusts Node's default CAs (here extended by NODE_EXTRA_CA_CERTS)", async () => {
    // Node reads NODE_EXTRA_CA_CERTS when it starts, so this runs the built command.
    const gateway = await startCommand(["--manager", tlsManager.address, "--manager-tls", "--log-level", "info"], { env: { NODE_EXTRA_CA_CERTS: certs.ca.cert } });
    try {
      expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
      await expect.poll(() => gateway.lines.some((line) => line.includes('"the Manager is serving"')), { timeout: 10_000 }).toBe(true);
    } finally {
      expect(await gateway.stop()).toBe(0);
    }
  });

  it("with --manager-tls alone, does not trust a CA that is not among Node's", async () => {
    const outcome = await tryGateway(["--manager", tlsManager.address, "--manager-tls"]);
    expectUnreachable(outcome, /certificate/i);
  });

  it("answers 503, and logs why, when the Manager's certificate is signed by a CA it does not trust", async () => {
    expectUnreachable(await tryGateway(["--manager", tlsManager.address, "--manager-ca", certs.otherCa.cert, "--manager-server-name", "manager.test"]), /certificate/i);
  });

  it("answers 503, and logs why, when it has no client certificate for a Manager that requires one", async () => {
    expectUnreachable(await tryGateway(["--manager", mtlsManager.address, "--manager-ca", certs.ca.cert, "--manager-server-name", "manager.test"]), /certificate|handshake|alert|closed|reset/i);
  });

  it("answers 503, and logs why, when the Manager's certificate does not carry the expected name", async () => {
    expectUnreachable(await tryGateway(["--manager", tlsManager.address, "--manager-ca", certs.ca.cert, "--manager-server-name", "other.test"]), /other\.test|altnames|name/i);
  });

  it("answers 503 when it speaks TLS to a Manager that serves plaintext", async () => {
    const plain = await startManager({ port: 0, dataDir: IN_MEMORY });
    try {
      expectUnreachable(await tryGateway(["--manager", plain.address, "--manager-ca", certs.ca.cert]), /.+/);
    } finally {
      await plain.close();
    }
  });
});
