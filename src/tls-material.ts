// The TLS material the configuration names, read and checked once at start-up: a file that
// cannot be read, or whose PEM does not make a certificate and key pair, stops the start with
// one line naming the setting (a ConfigError), rather than failing every later call.
import { readFileSync } from "node:fs";
import { createSecureContext } from "node:tls";
import type { Config } from "./config.js";
import { ConfigError, settingName } from "./config.js";
import type { ClientTls } from "norsk-manager-contract/grpc/index.js";

/** TLS to the Manager as the configuration asks for it; undefined: plaintext. */
export function readManagerTls(config: Config): ClientTls | undefined {
  const { managerTls: on, managerCa, managerCert, managerKey, managerServerName } = config;
  if (!on && managerCa === undefined && managerCert === undefined && managerServerName === undefined) return undefined;
  const ca = managerCa === undefined ? undefined : readPem("managerCa", managerCa);
  const pair = managerCert === undefined || managerKey === undefined ? undefined : readPair("managerCert", managerCert, "managerKey", managerKey);
  if (ca !== undefined) check("managerCa", () => createSecureContext({ ca }));
  return {
    ...(ca === undefined ? {} : { ca }),
    ...(pair === undefined ? {} : pair),
    ...(managerServerName === undefined ? {} : { serverName: managerServerName }),
  };
}

/**
 * The listener's certificate and key (--tls-cert, --tls-key), and the CAs of the client
 * certificates it requires (--tls-client-ca); undefined: plain HTTP.
 */
export function readListenerTls(config: Config): { cert: Buffer; key: Buffer; clientCa?: Buffer } | undefined {
  if (config.tlsCert === undefined || config.tlsKey === undefined) return undefined;
  const pair = readPair("tlsCert", config.tlsCert, "tlsKey", config.tlsKey);
  if (config.tlsClientCa === undefined) return pair;
  const clientCa = readPem("tlsClientCa", config.tlsClientCa);
  check("tlsClientCa", () => createSecureContext({ ca: clientCa }));
  return { ...pair, clientCa };
}

/** A certificate chain and its key, read and checked to belong together. */
function readPair(certKey: keyof Config, certPath: string, keyKey: keyof Config, keyPath: string): { cert: Buffer; key: Buffer } {
  const cert = readPem(certKey, certPath);
  const key = readPem(keyKey, keyPath);
  check(certKey, () => createSecureContext({ cert, key }), `with ${settingName(keyKey)}`);
  return { cert, key };
}

function readPem(key: keyof Config, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = error instanceof Error && "code" in error ? String(error.code) : String(error);
    throw new ConfigError(`${settingName(key)}: cannot read ${path} (${code})`);
  }
}

function check(key: keyof Config, use: () => unknown, context = ""): void {
  try {
    use();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`${settingName(key)}: not usable${context === "" ? "" : ` ${context}`} (${message})`);
  }
}
