#!/usr/bin/env -S node --max-semi-space-size=32
// The gateway command: configuration, start, one log line, and on SIGINT/SIGTERM a clean
// shutdown bounded by --shutdown-timeout.
//
// The node flags of the line above are the command's own, the one place they are said: npm
// start, the image's entry point and the benchmarks run the command with the same ones
// (test/repo/node-flags.test.ts). A young generation of 32 MiB semi-spaces instead of V8's
// default: every request leaves tens of kilobytes of short-lived objects, and fewer, larger
// scavenges cost less CPU for the same garbage (docs/benchmarks.md, "Where a request's CPU goes").
import { ConfigError, helpText, loadConfig } from "./config.js";
import type { LoadResult } from "./config.js";
import { startEmbeddedManager, startGateway } from "./gateway.js";
import { describeBuild } from "./build-info.js";
import { isPrimaryOf, reportServing, runPrimary } from "./cluster.js";
import type { PrimaryLog } from "./cluster.js";
import { batchedLines } from "./telemetry/log-stream.js";
import { lineSafe } from "./http/line-safe.js";
import type { Gateway } from "./gateway.js";

async function main(): Promise<void> {
  const loaded = readConfig();
  if ("help" in loaded) {
    process.stdout.write(helpText());
    return;
  }
  if ("version" in loaded) {
    process.stdout.write(`norsk-manager-gateway ${describeBuild()}\n`);
    return;
  }
  const { config } = loaded;
  if (isPrimaryOf(config)) {
    const primary = await runPrimary(config, {
      log: primaryLog(config.logLevel),
      fatal: printFatal,
      startEmbedded: () => startEmbeddedManager(config.dataDir),
    });
    process.exit(await primary.done);
  }
  // Listen for signals before starting, so that one arriving during start-up still closes
  // the gateway (and the embedded Manager's database) cleanly once it is up.
  let signalled: string | undefined;
  let onSignal = (signal: string): void => {
    signalled = signal;
  };
  process.once("SIGINT", () => { onSignal("SIGINT"); });
  process.once("SIGTERM", () => { onSignal("SIGTERM"); });
  const gateway = await startGateway(config, { level: config.logLevel, stream: batchedLines() });
  // A worker of --workers: from now on the primary replaces it if it dies (src/cluster.ts).
  reportServing();
  onSignal = (signal) => {
    gateway.app.log.info({ signal }, "shutting down");
    exitAfter(config.shutdownTimeoutMs + SHUTDOWN_GRACE_MS, gateway);
    gateway.close().then(
      () => process.exit(0),
      (error: unknown) => {
        gateway.app.log.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  if (signalled !== undefined) onSignal(signalled);
}

/** The configuration from the command line and environment; an unusable one exits with 2. */
function readConfig(): LoadResult {
  try {
    return loadConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    printFatal(error.message);
    process.exit(2);
  }
}

/** The one line on standard error of a command that cannot start or go on. */
function printFatal(message: string): void {
  process.stderr.write(`norsk-manager-gateway: ${message}\n`);
}

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const;

/** The primary's log: JSON lines on standard output, shaped as the workers' (pino's) are. */
function primaryLog(level: string): PrimaryLog {
  const least = (LEVELS as Record<string, number>)[level] ?? LEVELS.info;
  return (at, fields, msg) => {
    if (LEVELS[at] < least) return;
    process.stdout.write(`${lineSafe(JSON.stringify({ level: LEVELS[at], time: Date.now(), pid: process.pid, ...fields, msg }))}\n`);
  };
}

/**
 * How long after its deadline a shutdown may still take (the embedded Manager lets its calls
 * finish for up to 2 s) before the process exits regardless.
 */
const SHUTDOWN_GRACE_MS = 5_000;

/** A last resort: whatever still holds the shutdown, the process ends after `ms`. */
function exitAfter(ms: number, gateway: Gateway): void {
  setTimeout(() => {
    gateway.app.log.error({ ms }, "shutdown did not finish in time; exiting");
    process.exit(1);
  }, ms).unref();
}

// A setting found unusable only at start-up (a TLS file that cannot be read) exits with 2,
// as one refused by loadConfig does; any other failure to start, with 1.
main().catch((error: unknown) => {
  printFatal(error instanceof Error ? error.message : String(error));
  process.exit(error instanceof ConfigError ? 2 : 1);
});
