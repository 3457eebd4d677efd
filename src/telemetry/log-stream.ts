// Where the command's log lines go: standard output, in batches. With the access log on, every
// request makes a line; written one by one, each line would cost a system call of its own, a
// share of a cheap request's CPU (docs/benchmarks.md, "Telemetry"). Lines are held for at most
// FLUSH_AFTER_MS and written together: a person reading the log sees no delay, and under load a
// write carries tens of lines. The writes are asynchronous (sonic-boom, as pino's own
// destination); what is waiting when the process exits is written before it does.
import { destination } from "pino";

export interface LineSink {
  write(line: string): void;
}

/** How long a line may wait for others to go out with. */
const FLUSH_AFTER_MS = 10;

/** A stream for pino that writes its lines to `fd` in batches, each line within FLUSH_AFTER_MS. */
export function batchedLines(fd = 1): LineSink {
  const out = destination({ dest: fd, sync: false });
  let pending: string[] = [];
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    const lines = pending;
    pending = [];
    if (lines.length > 0) out.write(lines.join(""));
  };
  process.once("exit", () => {
    flush();
    out.flushSync();
  });
  return {
    write: (line) => {
      pending.push(line);
      if (!scheduled) {
        scheduled = true;
        setTimeout(flush, FLUSH_AFTER_MS);
      }
    },
  };
}
