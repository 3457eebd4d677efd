// Entry point of the reference Manager's scan worker thread (started by scanner.ts): runs each
// ScanTask it is sent, one at a time, and answers each with its ScanResult.
import { parentPort } from "node:worker_threads";
import { scan } from "./scan.js";
import type { ScanTask } from "./scan.js";

if (parentPort === null) throw new Error("scan-worker.ts runs as a worker thread only");
const port = parentPort;
port.on("message", (task: ScanTask) => {
  port.postMessage(scan(task));
});
