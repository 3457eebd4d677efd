// The embedded reference Manager (docs/architecture.md, "The reference Manager"): a gRPC server
// implementing norsk.api.manager.Manager and grpc.health.v1.Health over a SQLite store. Used by the
// gateway when no Manager address is given, by tests (port 0, temporary data dirs), and
// alone through src/main.ts.
import { Server } from "@grpc/grpc-js";
import { Health } from "norsk-manager-contract/gen/grpc/health/v1/health_pb.js";
import { EventStreamEventSchema, Manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Code, GrpcError, addService, encodeStreamMessage, listen } from "norsk-manager-contract/grpc/index.js";
import type { ServerTls } from "norsk-manager-contract/grpc/index.js";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { defaultClock } from "./context.js";
import type { ManagerContext } from "./context.js";
import { GroupCommit } from "./commits.js";
import { EventBus } from "./events.js";
import type { Change } from "./events.js";
import { healthService } from "./health.js";
import { Scanner } from "./scanner.js";
import { managerService } from "./service.js";
import { Store } from "./store.js";
import type { StreamCounters } from "./streams.js";

export { DataDirError, IN_MEMORY } from "./store.js";

export interface ManagerOptions {
  /** TCP port to listen on; 0 picks a free one (read it from the result). Default: 6790. */
  readonly port?: number;
  /** Interface to listen on. Default: "127.0.0.1" (loopback only). */
  readonly host?: string;
  /** Directory of manager.sqlite, created if missing; ":memory:" keeps nothing. Default: "./data". */
  readonly dataDir?: string;
  /**
   * How many bytes of committed changes (their events, encoded) an EventStream or
   * status-channel subscriber may have waiting before it is ended with RESOURCE_EXHAUSTED, so
   * that a stalled reader cannot pin the Manager's memory. Default: 64 MiB.
   */
  readonly eventQueueBytes?: number;
  /**
   * How many bytes a server stream (EventStream, JobSearch, ...) may have written and not yet
   * sent to its client before it waits for the client to read. Default: 64 KiB.
   */
  readonly streamBufferBytes?: number;
  /**
   * Time of history entries and node creation. Default: the system clock. Tests may fix it.
   */
  readonly clock?: () => Timestamp;
  /**
   * Errors the caller is not told the details of: handler errors that are not GrpcErrors
   * (answered INTERNAL), failed COMMITs (answered UNAVAILABLE; `method` is "COMMIT") and a
   * failed scan worker (the search answered INTERNAL; `method` is "SCAN").
   * Default: log to stderr.
   */
  readonly onUnexpectedError?: (error: unknown, method: string) => void;
  /**
   * Serve TLS with this certificate and key, and with `clientCa`, require client certificates
   * it signed (mTLS). Default: plaintext.
   */
  readonly tls?: ServerTls;
}

export interface ManagerStats {
  /** EventStream calls whose handler is running; back to 0 once their clients are gone. */
  readonly openEventStreams: number;
  /** CreateStatusChannel calls whose handler is running. */
  readonly openStatusChannels: number;
  /** Subscribers of the event bus (EventStream and status channels together). */
  readonly eventSubscribers: number;
}

export interface RunningManager {
  /** "host:port" to dial, e.g. "127.0.0.1:41234" ("[::1]:41234" for an IPv6 host). */
  readonly address: string;
  readonly port: number;
  /**
   * Stops accepting calls, ends open streams (UNAVAILABLE), waits for calls in flight to
   * finish (at most CLOSE_GRACE_MS, then cancels them), and closes the database. Idempotent.
   */
  close(): Promise<void>;
  stats(): ManagerStats;
}

/** The defaults, applied in one place (resolveOptions). */
export const MANAGER_DEFAULTS = {
  port: 6790,
  host: "127.0.0.1",
  dataDir: "./data",
  eventQueueBytes: 64 * 1024 * 1024,
  streamBufferBytes: 64 * 1024,
} as const;

/** How long close() lets calls in flight finish before cancelling them. */
export const CLOSE_GRACE_MS = 2_000;

type ResolvedOptions = Required<Omit<ManagerOptions, "tls">>;

function resolveOptions(options: ManagerOptions): ResolvedOptions {
  return {
    port: options.port ?? MANAGER_DEFAULTS.port,
    host: options.host ?? MANAGER_DEFAULTS.host,
    dataDir: options.dataDir ?? MANAGER_DEFAULTS.dataDir,
    eventQueueBytes: options.eventQueueBytes ?? MANAGER_DEFAULTS.eventQueueBytes,
    streamBufferBytes: options.streamBufferBytes ?? MANAGER_DEFAULTS.streamBufferBytes,
    clock: options.clock ?? defaultClock,
    onUnexpectedError:
      options.onUnexpectedError ??
      ((error, method) => {
        console.error(`reference manager: unexpected error in ${method}:`, error);
      }),
  };
}

export async function startManager(options: ManagerOptions = {}): Promise<RunningManager> {
  const resolved = resolveOptions(options);
  if (!Number.isInteger(resolved.port) || resolved.port < 0 || resolved.port > 65535) {
    throw new RangeError(`port must be an integer from 0 to 65535, got ${resolved.port}`);
  }
  const context = createContext(resolved);
  const counters: StreamCounters = { openEventStreams: 0, openStatusChannels: 0 };
  const shutdown = new AbortController();
  const server = createServer(context, counters, shutdown.signal, resolved);
  const host = resolved.host.includes(":") ? `[${resolved.host}]` : resolved.host;
  const port = await listenOrClose(server, context, `${host}:${resolved.port}`, options.tls);
  return {
    address: `${host}:${port}`,
    port,
    close: closeOnce(server, context, shutdown),
    stats: () => ({
      openEventStreams: counters.openEventStreams,
      openStatusChannels: counters.openStatusChannels,
      eventSubscribers: context.bus.subscriberCount,
    }),
  };
}

/**
 * A change's size as a subscriber's queue counts it: its events encoded (once, shared with
 * the server streams that send them, see encodeStreamMessage) and its summary.
 */
function changeSize(change: Change): number {
  let size = change.summary.length;
  for (const event of change.events) size += encodeStreamMessage(EventStreamEventSchema, event).length;
  return size;
}

/** Opens the store and starts what the handlers share: the event bus, group commit, the scanner. */
function createContext(resolved: ResolvedOptions): ManagerContext {
  const store = new Store(resolved.dataDir);
  const bus = new EventBus<Change>({ queueBytes: resolved.eventQueueBytes, sizeOf: changeSize });
  const commits = new GroupCommit(store, bus, (error) => {
    resolved.onUnexpectedError(error, "COMMIT");
  });
  const scanner = new Scanner({
    onWorkerError: (error) => {
      resolved.onUnexpectedError(error, "SCAN");
    },
  });
  return { store, bus, commits, scanner, now: resolved.clock };
}

/** A gRPC server with the Manager and Health services, not yet listening. */
function createServer(
  context: ManagerContext,
  counters: StreamCounters,
  shutdownSignal: AbortSignal,
  { onUnexpectedError, streamBufferBytes }: ResolvedOptions,
): Server {
  const server = new Server();
  const serveOptions = {
    onUnexpectedError: (error: unknown, method: { name: string }) => {
      onUnexpectedError(error, method.name);
    },
    streamBufferBytes,
  };
  addService(server, Manager, managerService(context, counters), serveOptions);
  addService(server, Health, healthService(shutdownSignal), serveOptions);
  return server;
}

/** Listens on `address` and returns the port; on failure closes everything and rethrows. */
async function listenOrClose(server: Server, context: ManagerContext, address: string, tls: ServerTls | undefined): Promise<number> {
  try {
    return await listen(server, address, tls);
  } catch (error) {
    server.forceShutdown();
    await context.scanner.close();
    context.store.close();
    throw error;
  }
}

/** RunningManager.close: the first call shuts down, every call returns that same promise. */
function closeOnce(server: Server, context: ManagerContext, shutdown: AbortController): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= closeManager(server, context, shutdown);
    return closing;
  };
}

async function closeManager(server: Server, context: ManagerContext, shutdown: AbortController): Promise<void> {
  shutdown.abort();
  context.bus.close(new GrpcError(Code.UNAVAILABLE, "the manager is shutting down"));
  await shutDown(server);
  await context.scanner.close();
  context.commits.flush();
  context.store.close();
}

/** Graceful shutdown, turned forceful after CLOSE_GRACE_MS. */
function shutDown(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, CLOSE_GRACE_MS);
    timer.unref();
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
