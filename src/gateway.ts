// The running gateway: the app listening on its port, connected to a Manager, which is the
// embedded reference Manager when no address is configured. Used by main.ts and by the tests
// that need the whole thing on port 0.
import type { FastifyInstance } from "fastify";
import type { Config } from "./config.js";
import { buildApp } from "./app.js";
import type { AppOptions } from "./app.js";
import { connectManager } from "./grpc/manager-connection.js";
import type { ManagerConnection } from "./grpc/manager-connection.js";
import { startManager } from "./manager/index.js";
import { defaultAllowedHosts } from "./server/cross-site.js";
import { gracefulClose } from "./server/shutdown.js";

export interface Gateway {
  readonly app: FastifyInstance;
  /** e.g. http://127.0.0.1:8080 */
  readonly url: string;
  /** The Manager's address, or "embedded". */
  readonly manager: string;
  /**
   * Stops accepting, lets in-flight requests finish for at most config.shutdownTimeoutMs (then
   * closes their connections), then closes the channel and the embedded Manager.
   */
  close(): Promise<void>;
}

export async function startGateway(config: Config, logger: AppOptions["logger"] = false): Promise<Gateway> {
  const embedded =
    config.manager === undefined ? await startManager({ port: 0, host: "127.0.0.1", dataDir: config.dataDir }) : undefined;
  const address = config.manager ?? embedded?.address ?? "";
  const connection = connectManager(address, config.requestTimeoutMs);
  const managerLabel = embedded === undefined ? address : "embedded";
  try {
    const app = await buildApp(appOptions(config, connection, logger));
    const shutdown = gracefulClose(app);
    let url = "";
    await app.listen({
      port: config.port,
      host: config.host,
      // Fastify logs this as its one "listening" line; it is also the gateway's start-up line.
      listenTextResolver: (listening) => {
        url = listening;
        return `norsk-manager-gateway listening on ${listening} (Manager: ${managerLabel}; docs: ${listening}/docs)`;
      },
    });
    return {
      app,
      url,
      manager: managerLabel,
      close: async () => {
        await shutdown.close(config.shutdownTimeoutMs);
        connection.close();
        await embedded?.close();
      },
    };
  } catch (error) {
    connection.close();
    await embedded?.close();
    throw error;
  }
}

/** What buildApp needs, from the configuration. */
function appOptions(config: Config, connection: ManagerConnection, logger: AppOptions["logger"]): AppOptions {
  return {
    connection,
    requestTimeoutMs: config.requestTimeoutMs,
    maxRequestTimeoutMs: config.maxRequestTimeoutMs,
    logger,
    streams: { heartbeatMs: config.sseHeartbeatMs, bufferLimitBytes: config.sseBufferBytes },
    limits: {
      headerTimeoutMs: config.headerTimeoutMs,
      bodyTimeoutMs: config.bodyTimeoutMs,
      idleTimeoutMs: config.idleTimeoutMs,
      maxConnections: config.maxConnections,
    },
    crossSite: { allowedHosts: config.allowedHosts ?? defaultAllowedHosts(config.host), allowedOrigins: config.allowedOrigins },
  };
}
