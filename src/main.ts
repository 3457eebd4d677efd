#!/usr/bin/env node
// The gateway command: configuration, start, one log line, clean shutdown on SIGINT/SIGTERM.
import { ConfigError, helpText, loadConfig } from "./config.js";
import { startGateway } from "./gateway.js";

async function main(): Promise<void> {
  let loaded;
  try {
    loaded = loadConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`norsk-manager-gateway: ${error.message}\n`);
    process.exit(2);
  }
  if (loaded.help) {
    process.stdout.write(helpText());
    return;
  }
  const { config } = loaded;
  // Listen for signals before starting, so that one arriving during start-up still closes
  // the gateway (and the embedded Manager's database) cleanly once it is up.
  let signalled: string | undefined;
  let onSignal = (signal: string): void => {
    signalled = signal;
  };
  process.once("SIGINT", () => { onSignal("SIGINT"); });
  process.once("SIGTERM", () => { onSignal("SIGTERM"); });
  const gateway = await startGateway(config, { level: config.logLevel });
  onSignal = (signal) => {
    gateway.app.log.info({ signal }, "shutting down");
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

main().catch((error: unknown) => {
  process.stderr.write(`norsk-manager-gateway: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
