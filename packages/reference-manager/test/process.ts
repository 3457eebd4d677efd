// Runs src/main.ts as a child process (through tsx's loader), for the tests of the
// command line and of durability against kill -9.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

export interface ManagerProcess {
  readonly child: ChildProcess;
  /** stdout and stderr lines so far. */
  readonly lines: string[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with "host:port" once the process logs that it listens; rejects if it exits first. */
  listening(): Promise<string>;
}

export function runManager(args: readonly string[]): ManagerProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "packages/reference-manager/src/main.ts", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  const onLine = (line: string): void => {
    lines.push(line);
    for (const waiter of waiters) waiter(line);
  };
  createInterface({ input: child.stdout }).on("line", onLine);
  createInterface({ input: child.stderr }).on("line", onLine);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      resolve({ code, signal });
    });
  });
  const listening = (): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      const match = (line: string): boolean => {
        const found = /listening on (\S+)/.exec(line);
        if (found?.[1] !== undefined) resolve(found[1]);
        return found !== null;
      };
      if (lines.some(match)) return;
      waiters.push(match);
      void exited.then(({ code }) => {
        reject(new Error(`manager exited with ${String(code)} before listening:\n${lines.join("\n")}`));
      });
    });
  return { child, lines, exited, listening };
}
