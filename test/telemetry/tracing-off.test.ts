// Tracing off costs nothing because it is absent: the built command, started without
// --otlp-endpoint, imports no @opentelemetry module, even after answering requests. Module
// loading is watched by a resolve hook (node:module register) that the child process is started
// with, which prints each @opentelemetry module it resolves; the same command with an endpoint
// shows that the hook sees them when they are loaded (and that a collector that is down does
// not fail its shutdown).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCommand } from "../helpers/command.js";

const HOOKS = `import { writeSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.includes("/@opentelemetry/")) writeSync(2, "module-loaded " + resolved.url + "\\n");
  return resolved;
}
`;

let dir: string;
let register: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "module-hooks-"));
  const hooks = join(dir, "hooks.mjs");
  await writeFile(hooks, HOOKS);
  register = join(dir, "register.mjs");
  await writeFile(register, `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The @opentelemetry modules the command loaded by the time it answered a request and stopped. */
async function otelModulesLoaded(args: readonly string[]): Promise<string[]> {
  const gateway = await startCommand(args, { nodeArgs: ["--import", pathToFileURL(register).href] });
  try {
    const response = await fetch(`${gateway.url}/v1/jobs/none`, { headers: { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" } });
    expect(response.status).toBe(404);
    await response.arrayBuffer();
  } finally {
    // Also with a collector that is down: its last spans are lost, and the exit is still 0.
    expect(await gateway.stop()).toBe(0);
  }
  return gateway.lines.filter((line) => line.startsWith("module-loaded "));
}

describe("tracing off", () => {
  it("loads no @opentelemetry module, though the hook sees them when tracing is on", async () => {
    expect(await otelModulesLoaded([])).toEqual([]);
    const withTracing = await otelModulesLoaded(["--otlp-endpoint", "http://127.0.0.1:9"]);
    expect(withTracing.some((line) => line.includes("/@opentelemetry/sdk-trace-base/"))).toBe(true);
    expect(withTracing.some((line) => line.includes("/@opentelemetry/exporter-trace-otlp-http/"))).toBe(true);
  }, 90_000);
});
