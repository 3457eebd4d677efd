// The one way tests start a gateway in this process: buildApp in front of a Manager, driven
// with app.inject or listening on 127.0.0.1:0. startTestGateway puts a real reference Manager
// (port 0, in memory) behind it; gatewayTo puts the app in front of any Manager address (a stub
// Manager, a proxy, a shared Manager for replicas). startMainGateway is the one exception, for
// tests that read the log as it is written (see there). The built command is test/helpers/command.ts.
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../src/app.js";
import type { AppOptions } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { startGateway } from "../../src/gateway.js";
import type { Gateway } from "../../src/gateway.js";
import { connectManager } from "norsk-manager-contract/grpc/manager-connection.js";
import type { ManagerConnection } from "norsk-manager-contract/grpc/manager-connection.js";
import { IN_MEMORY, startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import type { Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { ManagerClient } from "../../src/operations/job-access.js";

export interface GatewayOptions extends Omit<AppOptions, "connection"> {
  /** Listen on 127.0.0.1:0 (for real HTTP clients), and give the url. Default: false, app.inject only. */
  readonly listen?: boolean;
  /** Called before the app listens: a test may add routes (a page for a browser). Default: none. */
  readonly beforeListen?: (app: FastifyInstance) => void;
  /** Methods that replace the real Manager client's; each may call `real`. Default: none. */
  readonly hook?: (real: ManagerClient) => Partial<ManagerClient>;
  /** The channels' message limit, as --max-message-size. Default: the setting's. */
  readonly maxMessageSizeBytes?: number;
}

/**
 * What tests set unless they say otherwise; everything else is the command's default.
 * - requestTimeoutMs: a call that goes wrong fails a test within its own timeout.
 * - shedEventLoopDelayMs off: in a test this process's event loop also runs the Manager, the
 *   clients and the test runner, on a machine shared with other test files, so its delay
 *   measures the test, not the gateway. test/server/load-shedding.test.ts sets it.
 */
export const TEST_SETTINGS = { requestTimeoutMs: 5_000, shedEventLoopDelayMs: 0 } as const;

export interface GatewayUnderTest {
  readonly app: FastifyInstance;
  /** The connection to the Manager, unhooked: the test's direct line to it. */
  readonly connection: ManagerConnection;
  /** The listening address (http://127.0.0.1:port) with `listen`; "" without. */
  readonly url: string;
  close(): Promise<void>;
}

/** A gateway app in front of the Manager at `address`, with TEST_SETTINGS and `options`. */
export async function gatewayTo(address: string, options: GatewayOptions = {}): Promise<GatewayUnderTest> {
  const { listen = false, beforeListen, hook, maxMessageSizeBytes, ...appOptions } = options;
  const settings = { ...TEST_SETTINGS, ...appOptions };
  const connection = connectManager(address, {
    defaultTimeoutMs: settings.requestTimeoutMs,
    ...(maxMessageSizeBytes === undefined ? {} : { maxMessageSizeBytes }),
  });
  const hooked: ManagerConnection = hook === undefined ? connection : { ...connection, manager: { ...connection.manager, ...hook(connection.manager) } };
  const app = await buildApp({ ...settings, connection: hooked });
  beforeListen?.(app);
  const url = listen ? await app.listen({ port: 0, host: "127.0.0.1" }) : "";
  return {
    app,
    connection,
    url,
    close: async () => {
      await app.close();
      connection.close();
    },
  };
}

export interface TestGateway extends GatewayUnderTest {
  readonly manager: RunningManager;
  /** Every job the Manager holds, in id order, straight from JobSearch. */
  jobs(): Promise<Job[]>;
}

/** A gateway in front of its own reference Manager (port 0, in memory); `options` as gatewayTo's. */
export async function startTestGateway(options: GatewayOptions = {}): Promise<TestGateway> {
  const manager = await startManager({ port: 0, dataDir: IN_MEMORY });
  const gateway = await gatewayTo(manager.address, options);
  return {
    ...gateway,
    manager,
    jobs: () => jobsOf(gateway.connection),
    close: async () => {
      await gateway.close();
      await manager.close();
    },
  };
}

export type LogLine = Record<string, unknown>;

export interface MainGatewayOptions {
  /** The log level, as --log-level. Default: "info". */
  readonly level?: string;
  /** The environment the settings are also read from, as the command's. Default: empty, flags only. */
  readonly env?: NodeJS.ProcessEnv;
}

export interface MainGateway {
  readonly gateway: Gateway;
  readonly url: string;
  /** Every line logged so far, parsed, each as soon as the gateway writes it. */
  readonly lines: LogLine[];
  /** Every line logged so far, as the text written (a line-splitting reader's view). */
  readonly written: string[];
  close(): Promise<void>;
}

/**
 * The gateway as main.ts starts it (startGateway, from the flags `argv` on port 0), but in this
 * process, its log captured line by line as the JSON pino writes. For tests that need the log
 * as it is written: the built command batches its standard output, so there a line that has not
 * come yet cannot be told from one that never will ("logs no request" would pass unproven).
 * Everything else that needs the command's flags starts the built command (test/helpers/command.ts).
 * Load shedding is off as in TEST_SETTINGS (a flag in `argv` may turn it on).
 */
export async function startMainGateway(argv: readonly string[], options: MainGatewayOptions = {}): Promise<MainGateway> {
  const { level = "info", env = {} } = options;
  const loaded = loadConfig(["--port", "0", "--shed-event-loop-delay", String(TEST_SETTINGS.shedEventLoopDelayMs), ...argv], env);
  if (!("config" in loaded)) throw new Error("--help and --version start no gateway");
  const lines: LogLine[] = [];
  const written: string[] = [];
  const stream = {
    write: (line: string) => {
      written.push(line);
      lines.push(JSON.parse(line) as LogLine);
    },
  };
  const gateway = await startGateway(loaded.config, { level, stream });
  return { gateway, url: gateway.url, lines, written, close: () => gateway.close() };
}

/** Every job the Manager behind `connection` holds, in id order, straight from JobSearch. */
export async function jobsOf(connection: ManagerConnection): Promise<Job[]> {
  const jobs: Job[] = [];
  for await (const current of connection.manager.jobSearch({})) if (current.job) jobs.push(current.job);
  return jobs;
}

export const JSON_HEADERS = { "content-type": "application/json" } as const;

/** The start of the jobs tests create: any fixed instant will do. */
export const START = "2026-01-01T00:00:00Z";

/** Creates the job `jobId` (with `extra` fields) through `app`, expects a 201, and resolves with its ETag. */
export async function createJob(app: FastifyInstance, jobId: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await app.inject({ method: "POST", url: "/v1/jobs", headers: JSON_HEADERS, payload: { jobId, startDateTime: START, ...extra } });
  if (res.statusCode !== 201) throw new Error(`creating ${jobId}: ${String(res.statusCode)} ${res.body}`);
  return String(res.headers.etag);
}
