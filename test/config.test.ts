import { describe, expect, it } from "vitest";
import { ConfigError, helpText, loadConfig } from "../src/config.js";

function config(argv: string[], env: Record<string, string> = {}) {
  const result = loadConfig(argv, env);
  if (result.help) throw new Error("unexpected help");
  return result.config;
}

describe("loadConfig", () => {
  it("applies the documented defaults", () => {
    expect(config([])).toEqual({
      port: 8080,
      host: "127.0.0.1",
      dataDir: "./data",
      requestTimeoutMs: 10_000,
      logLevel: "info",
      sseHeartbeatMs: 15_000,
      sseBufferBytes: 1_048_576,
    });
  });

  it("prefers a flag to the environment, and the environment to the default", () => {
    expect(config(["--port", "9000"], { PORT: "9100", HOST: "0.0.0.0" })).toMatchObject({ port: 9000, host: "0.0.0.0" });
    expect(config([], { MANAGER_ADDRESS: "manager:6790", REQUEST_TIMEOUT_MS: "2500", LOG_LEVEL: "debug", DATA_DIR: "/tmp/x" })).toMatchObject({
      manager: "manager:6790",
      requestTimeoutMs: 2500,
      logLevel: "debug",
      dataDir: "/tmp/x",
    });
  });

  it.each([
    [["--port", "http"], /--port/],
    [["--port", "70000"], /--port/],
    [["--port", "1e3"], /--port/],
    [["--request-timeout", "0"], /--request-timeout/],
    [["--log-level", "loud"], /--log-level/],
    [["--manager", "no-port"], /--manager/],
    [["--sse-heartbeat", "0"], /--sse-heartbeat/],
    [["--sse-buffer", "10"], /--sse-buffer/],
    [["--bogus", "1"], /bogus/],
  ])("stops on %j with one line naming the setting", (argv, pattern) => {
    expect(() => config(argv)).toThrow(ConfigError);
    expect(() => config(argv)).toThrow(pattern);
  });

  it("names the environment variable when the bad value came from there", () => {
    expect(() => config([], { PORT: "eighty" })).toThrow(/PORT/);
  });

  it("asks for help with --help, which lists every setting", () => {
    expect(loadConfig(["--help"], {})).toEqual({ help: true });
    for (const name of ["--port", "PORT", "--host", "--manager", "MANAGER_ADDRESS", "--data-dir", "--request-timeout", "--log-level", "--sse-heartbeat", "SSE_HEARTBEAT_MS", "--sse-buffer", "SSE_BUFFER_BYTES"]) {
      expect(helpText()).toContain(name);
    }
  });
});
