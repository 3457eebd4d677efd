// A real Redis for the tests (Debian's redis-server, installed by .ci/run), on loopback on a
// free port, persisting nothing; and the stores that misbehave: one that accepts connections
// and never answers, and a proxy in front of a real one that can stop passing its answers on.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createConnection, createServer } from "node:net";
import type { AddressInfo, Server, Socket } from "node:net";
import { tmpdir } from "node:os";
import { createInterface } from "node:readline";

export const REDIS_SERVER = "/usr/bin/redis-server";

export interface RedisUnderTest {
  /** redis://127.0.0.1:PORT, without the password. */
  readonly url: string;
  readonly port: number;
  /** The server's process id (of the one running now). */
  pid(): number;
  /** Kills the server at once (SIGKILL, as a crash): nothing is saved. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
}

export interface RedisOptions {
  /** The password every client must give (requirepass). Default: none. */
  readonly password?: string;
}

/** A free loopback port, found by listening on port 0 and closing. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => { resolve(); }));
  return port;
}

/** Starts redis-server and resolves once it accepts connections. */
export async function startRedis(options: RedisOptions = {}): Promise<RedisUnderTest> {
  const port = await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", tmpdir(), ...(options.password === undefined ? [] : ["--requirepass", options.password])];
  let child = await spawnRedis(args);
  return {
    url: `redis://127.0.0.1:${String(port)}`,
    port,
    pid: () => child.pid ?? 0,
    kill: () => killed(child),
    restart: async () => {
      child = await spawnRedis(args);
    },
  };
}

async function spawnRedis(args: readonly string[]): Promise<ChildProcess> {
  const child = spawn(REDIS_SERVER, args, { stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => { reject(new Error(`redis-server did not start:\n${lines.join("\n")}`)); }, 10_000);
    createInterface({ input: child.stdout }).on("line", (line) => {
      lines.push(line);
      if (line.includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${String(code)}:\n${lines.join("\n")}`));
    });
  });
  return child;
}

async function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => { resolve(); }));
  child.kill("SIGKILL");
  await exited;
}

export interface SilentStore {
  readonly url: string;
  /** Connections accepted so far. */
  readonly accepted: () => number;
  close(): Promise<void>;
}

/** A server that accepts connections, reads what it is sent, and never answers. */
export async function startSilentStore(): Promise<SilentStore> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on("data", () => undefined);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
  });
  const port = await listen(server);
  return {
    url: `redis://127.0.0.1:${String(port)}`,
    accepted: () => accepted,
    close: () => closeAll(server, sockets),
  };
}

export interface FreezingProxy {
  readonly url: string;
  /** From now on, what the store answers is no longer passed on (the connections stay open). */
  freeze(): void;
  /** Passes answers on again, to the connections made from now on. */
  thaw(): void;
  close(): Promise<void>;
}

/** A TCP proxy to `port`, which can stop passing the store's answers on: a store that hangs once connected. */
export async function startFreezingProxy(port: number): Promise<FreezingProxy> {
  const sockets = new Set<Socket>();
  let frozen = false;
  const server = createServer((client) => {
    const upstream = createConnection(port, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => sockets.delete(socket));
    }
    client.on("data", (chunk) => upstream.write(chunk));
    upstream.on("data", (chunk) => { if (!frozen) client.write(chunk); });
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  const proxyPort = await listen(server);
  return {
    url: `redis://127.0.0.1:${String(proxyPort)}`,
    freeze: () => { frozen = true; },
    thaw: () => { frozen = false; },
    close: () => closeAll(server, sockets),
  };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

async function closeAll(server: Server, sockets: Set<Socket>): Promise<void> {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => { resolve(); }));
}
