// Shared by the reference Manager's tests: a real Manager on port 0 with a temporary data dir,
// our typed client, a full 25-field job, and helpers to prove that a call changed nothing.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Client as GrpcChannel } from "@grpc/grpc-js";
import {
  AutoPlacementSchema,
  Cloud,
  JobSchema,
  Job_JobState,
  Manager,
  PriorityBand,
  Version,
} from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { EventStreamEvent, Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { ProtocolFamily, Service_ServiceRestart } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import { GrpcError, createChannel, createClient } from "norsk-manager-contract/grpc/index.js";
import type { Client } from "norsk-manager-contract/grpc/index.js";
import { startManager } from "../src/index.js";
import type { ManagerOptions, RunningManager } from "../src/index.js";

export type ManagerClient = Client<typeof Manager>;

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), "manager-test-"));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export interface Harness {
  readonly manager: RunningManager;
  readonly client: ManagerClient;
  readonly channel: GrpcChannel;
  readonly dataDir: string;
  /** Closes the client and the Manager; keeps the data dir (see `dispose`). */
  stop(): Promise<void>;
  /** stop(), then removes the data dir. */
  dispose(): Promise<void>;
}

/** A Manager on port 0 over `dataDir` (a fresh temp dir by default), with a client. */
export async function startHarness(options: ManagerOptions & { dataDir?: string } = {}): Promise<Harness> {
  const dataDir = options.dataDir ?? tempDataDir();
  const manager = await startManager({ ...options, port: 0, dataDir });
  const channel = createChannel(manager.address);
  const client = createClient(Manager, channel, { defaultTimeoutMs: 10_000 });
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    channel.close();
    await manager.close();
  };
  return {
    manager,
    client,
    channel,
    dataDir,
    stop,
    dispose: async () => {
      await stop();
      if (dataDir !== ":memory:") removeDir(dataDir);
    },
  };
}

/** A Job as an init object (fields optional, sub-messages as init objects or messages). */
export type JobInit = Exclude<MessageInitShape<typeof JobSchema>, Job>;

/** A job with every one of Job's 25 fields set to a non-default value. */
export function fullJob(id: string, overrides: Partial<JobInit> = {}): Job {
  return create(JobSchema, {
    jobId: { jobId: id },
    description: `job ${id}`,
    tags: { zone: "eu", team: "media", "1": "numeric key" },
    startDateTime: { seconds: 1_767_225_600n, nanos: 123_456_789 },
    currentHash: 0n,
    managerConfiguration: '{"priority":"high"}',
    services: [
      {
        name: "ingest",
        container: { case: "docker", value: { containerUrl: { url: "registry.example.com/ingest:1.2" } } },
        restart: Service_ServiceRestart.ON_FAILURE,
        dependsOn: ["db"],
        configuration: "{}",
        restartCount: 3,
        restartPeriod: 60,
        command: "run --fast",
        parameters: {
          portMappings: [
            {
              containerPort: 5001,
              protocol: ProtocolFamily.UDP,
              hostPort: { case: "range", value: { minPort: 5000, maxPort: 5010 } },
              hostAddress: "0.0.0.0",
              group: "srt",
            },
          ],
          environmentVariables: [{ name: "LOG", value: "debug" }],
          sharedMemorySize: { value: 18_446_744_073_709_551_615n },
          cpuSet: [0, 1],
          volumeMounts: [{ volumeName: "media", containerPath: "/media", readOnly: true }],
        },
      },
    ],
    norskMediaVersion: Version.LTS,
    norskServiceParameters: {
      portMappings: [{ containerPort: 80, protocol: ProtocolFamily.TCP, hostPort: { case: "specific", value: { port: 8080 } } }],
      sharedMemorySize: { value: 1n << 30n },
    },
    volumes: ["media", "scratch"],
    state: Job_JobState.PRE,
    shape: "VM.Standard.E4.Flex",
    architecture: "x86_64",
    subnet: "subnet-1",
    availabilityDomain: "AD-1",
    cloud: Cloud.OCI,
    autoPlacement: create(AutoPlacementSchema, {
      requirements: {
        requiredCapacity: 0.5,
        requiredCores: { value: 4 },
        requiredGpuCapacity: { value: 0.25 },
        requiredGpuModel: { value: "L4" },
        requiredCapabilities: [{ name: "gpu", value: "nvenc" }],
        priorityBand: PriorityBand.SILVER,
      },
    }),
    extraSecurityGroups: ["sg-a", "sg-b"],
    launchConfigJson: "",
    norskCpuList: [2, 3],
    productTemplate: { name: "live-encoder", version: "2.1" },
    productTemplateParameters: { WIDTH: "1920", HEIGHT: "1080" },
    templateLaunchDefaultsJson: '{"gpu":false}',
    terminalState: { failureReason: "none yet" },
    writeFiles: [{ path: "/etc/app.conf", contents: "a=1\n" }],
    ...overrides,
  });
}

/** A minimal job: an id and a start time. */
export function simpleJob(id: string, overrides: Partial<JobInit> = {}): Job {
  return create(JobSchema, { jobId: { jobId: id }, startDateTime: { seconds: 1_767_225_600n }, ...overrides });
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The GrpcError a call fails with; fails the test when it succeeds or throws something else. */
export async function grpcErrorOf(call: Promise<unknown> | (() => Promise<unknown>)): Promise<GrpcError> {
  try {
    await (typeof call === "function" ? call() : call);
  } catch (error) {
    if (error instanceof GrpcError) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

/** Every row of every table, blobs as hex: two equal dumps mean nothing was written. */
export function dumpDatabase(dataDir: string): Record<string, unknown[]> {
  const db = new Database(join(dataDir, "manager.sqlite"), { readonly: true, fileMustExist: true });
  try {
    const dump: Record<string, unknown[]> = {};
    for (const [table, order] of [["jobs", "id"], ["history", "seq"], ["instances", "job_id, role"], ["nodes", "id"]] as const) {
      dump[table] = db
        .prepare(`SELECT * FROM ${table} ORDER BY ${order}`)
        .safeIntegers(true)
        .all()
        .map((row) =>
          Object.fromEntries(
            Object.entries(row as Record<string, unknown>).map(([k, v]) => [k, v instanceof Uint8Array ? Buffer.from(v).toString("hex") : v]),
          ),
        );
    }
    return dump;
  } finally {
    db.close();
  }
}

/** Reads an event stream in the background; `next()` awaits the next event in order. */
export class EventReader<T> {
  readonly #buffered: T[] = [];
  #waiting: ((value: IteratorResult<T>) => void) | undefined;
  #done: { error?: Error } | undefined;
  readonly finished: Promise<void>;

  constructor(source: AsyncIterable<T>) {
    this.finished = (async () => {
      try {
        for await (const item of source) this.#deliver({ value: item, done: false });
        this.#done = {};
      } catch (error) {
        this.#done = { error: error instanceof Error ? error : new Error(String(error)) };
      }
      this.#deliver({ value: undefined, done: true });
    })();
  }

  #deliver(result: IteratorResult<T>): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (waiting !== undefined) waiting(result);
    else if (result.done !== true) this.#buffered.push(result.value);
  }

  /** The next item; throws the stream's error, or when it ended. */
  async next(): Promise<T> {
    const buffered = this.#buffered.shift();
    if (buffered !== undefined) return buffered;
    if (this.#done !== undefined) {
      if (this.#done.error !== undefined) throw this.#done.error;
      throw new Error("stream ended");
    }
    const result = await new Promise<IteratorResult<T>>((resolve) => {
      this.#waiting = resolve;
    });
    if (result.done === true) return this.next();
    return result.value;
  }

  /** The next `n` items. */
  async take(n: number): Promise<T[]> {
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(await this.next());
    return out;
  }

  /** The stream's error once it ends (undefined when it ended cleanly). */
  async error(): Promise<Error | undefined> {
    await this.finished;
    return this.#done?.error;
  }
}

/** Names of the events, e.g. ["nodeRunning", "jobActive", "initialDataComplete"]. */
export function kinds(events: readonly EventStreamEvent[]): string[] {
  return events.map((e) => e.event.case ?? "none");
}

/** Polls `condition` until true (bounded): for server-side counters that have no event to await. */
export async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}
