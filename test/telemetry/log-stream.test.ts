// The command's log stream (src/telemetry/log-stream.ts), in a child process writing to a real
// pipe: lines come out whole and in order, lines written together go out in one write, a lone
// line goes out within moments, and what waits is written when the process exits.
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const MODULE = fileURLToPath(new URL("../../src/telemetry/log-stream.ts", import.meta.url));

/** Runs `body` (with `sink` in scope) in a child node; its standard output as the chunks read. */
function child(body: string): Promise<{ chunks: { at: number; text: string }[]; started: number }> {
  const script = `import { batchedLines } from ${JSON.stringify(MODULE)};\nconst sink = batchedLines();\n${body}`;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const proc = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    const chunks: { at: number; text: string }[] = [];
    proc.stdout.setEncoding("utf8");
    proc.stdout.on("data", (text: string) => chunks.push({ at: Date.now(), text }));
    proc.once("error", reject);
    proc.once("close", () => {
      resolve({ chunks, started });
    });
  });
}

describe("batchedLines", () => {
  it("writes the lines of a burst together, whole and in order", async () => {
    const { chunks } = await child(`for (let i = 0; i < 200; i++) sink.write(\`line \${i}\\n\`); setTimeout(() => undefined, 200);`);
    expect(chunks.map((c) => c.text).join("")).toBe(Array.from({ length: 200 }, (_, i) => `line ${String(i)}\n`).join(""));
    expect(chunks).toHaveLength(1);
  });

  it("writes a lone line within moments, not only when more come", async () => {
    const { chunks } = await child(`setTimeout(() => sink.write("alone\\n"), 50); setTimeout(() => sink.write("later\\n"), 600); setTimeout(() => undefined, 900);`);
    expect(chunks.map((c) => c.text)).toEqual(["alone\n", "later\n"]);
    expect((chunks[1]?.at ?? 0) - (chunks[0]?.at ?? 0)).toBeGreaterThan(300); // each on its own, as it came
  });

  it("writes what waits when the process exits at once", async () => {
    const { chunks } = await child(`sink.write("last words\\n"); process.exit(0);`);
    expect(chunks.map((c) => c.text).join("")).toBe("last words\n");
  });
});
