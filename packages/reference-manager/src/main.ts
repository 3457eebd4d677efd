#!/usr/bin/env node
// Runs the reference Manager alone: `npm run manager -- --port 6790 --data-dir ./data`, or
// `norsk-reference-manager` (the package's bin, dist/main.js) after `npm run build`. Exit codes: 0 after a clean
// shutdown (SIGINT, SIGTERM), 1 when start-up fails, 2 for a bad command line or a data dir
// that cannot be used (one line naming it and why).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { ServerTls } from "norsk-manager-contract/grpc/index.js";
import { DataDirError, MANAGER_DEFAULTS, startManager } from "./index.js";

const USAGE = `Usage: npm run manager -- [options]

Runs the embedded reference Norsk Manager as a standalone gRPC server
(norsk.api.manager.Manager and grpc.health.v1.Health).

Options:
  --port <n>        TCP port, 0 for any free one (default ${MANAGER_DEFAULTS.port})
  --host <address>  interface to listen on (default ${MANAGER_DEFAULTS.host})
  --data-dir <dir>  where manager.sqlite is kept, ":memory:" for nothing (default ${MANAGER_DEFAULTS.dataDir})
  --tls-cert <pem>  serve TLS with this certificate chain (with --tls-key)
  --tls-key <pem>   the certificate's private key
  --client-ca <pem> require client certificates signed by these CAs (mTLS; with --tls-cert)
  --help            show this help
`;

interface Settings {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly tls?: ServerTls;
}

type Values = { port?: string; host?: string; "data-dir"?: string; "tls-cert"?: string; "tls-key"?: string; "client-ca"?: string; help?: boolean };

class UsageError extends Error {}

function parseCommandLine(argv: readonly string[]): Settings | "help" {
  let values: Values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        port: { type: "string" },
        host: { type: "string" },
        "data-dir": { type: "string" },
        "tls-cert": { type: "string" },
        "tls-key": { type: "string" },
        "client-ca": { type: "string" },
        help: { type: "boolean" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    // parseArgs explains some mistakes over several lines; the contract is one line.
    throw new UsageError((error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, " "));
  }
  if (values.help === true) return "help";
  return {
    port: values.port === undefined ? MANAGER_DEFAULTS.port : parsePort(values.port),
    host: values.host === undefined ? MANAGER_DEFAULTS.host : nonEmpty("--host", values.host),
    dataDir: values["data-dir"] === undefined ? MANAGER_DEFAULTS.dataDir : nonEmpty("--data-dir", values["data-dir"]),
    ...tlsSettings(values),
  };
}

/** The TLS material the flags name, read now so that a wrong path stops the start with one line. */
function tlsSettings(values: Values): { tls?: ServerTls } {
  const { "tls-cert": cert, "tls-key": key, "client-ca": clientCa } = values;
  if (cert === undefined && key === undefined && clientCa === undefined) return {};
  if (cert === undefined || key === undefined) throw new UsageError("--tls-cert and --tls-key go together (and --client-ca needs them)");
  return {
    tls: {
      cert: readPem("--tls-cert", cert),
      key: readPem("--tls-key", key),
      ...(clientCa === undefined ? {} : { clientCa: readPem("--client-ca", clientCa) }),
    },
  };
}

function readPem(flag: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new UsageError(`cannot read ${flag} ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function parsePort(text: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) throw new UsageError(`invalid --port "${text}": expected an integer from 0 to 65535`);
  return port;
}

function nonEmpty(flag: string, text: string): string {
  if (text.trim() === "") throw new UsageError(`invalid ${flag}: must not be empty`);
  return text;
}

async function main(): Promise<void> {
  let settings: Settings | "help";
  try {
    settings = parseCommandLine(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`norsk-manager: ${error.message} (see --help)\n`);
    process.exitCode = 2;
    return;
  }
  if (settings === "help") {
    process.stdout.write(USAGE);
    return;
  }

  let manager;
  try {
    manager = await startManager(settings);
  } catch (error) {
    if (!(error instanceof DataDirError)) throw error;
    process.stderr.write(`norsk-manager: ${error.message}\n`);
    process.exitCode = 2;
    return;
  }
  const security = settings.tls === undefined ? "plaintext" : settings.tls.clientCa === undefined ? "TLS" : "TLS, client certificates required";
  console.log(`reference Manager listening on ${manager.address} (${security}; data: ${settings.dataDir})`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    console.log(`reference Manager: ${signal}, shutting down`);
    manager.close().then(
      () => {
        process.exit(0);
      },
      (error: unknown) => {
        console.error("reference Manager: shutdown failed:", error);
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  console.error("reference Manager: failed to start:", error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
