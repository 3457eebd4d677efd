// The packed client, as a user installs it: `npm pack` of packages/client gives one tarball of
// its dist/ alone, which installs into an empty folder with no dependency at all, type-checks
// the tour of docs/guide/client.md against its declarations, and runs the tour against a
// gateway. The tour's ```ts blocks are one program, in order.
import { execFile } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startListeningGateway } from "../helpers/listening-gateway.js";
import type { ListeningGateway } from "../helpers/listening-gateway.js";
import { installPacked, pack } from "../helpers/packed.js";
import type { Packed } from "../helpers/packed.js";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../..");
const TOUR = "docs/guide/client.md";

/** The tour's program: its ```ts blocks, in order. */
export function tourProgram(markdown: string): string {
  return [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? "").join("\n");
}

let folder: string;
let packed: Packed;
let gateway: ListeningGateway;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "client-pack-"));
  packed = await pack(folder, "norsk-manager-client");
  await installPacked(folder, [packed.tarball], []);
  gateway = await startListeningGateway();
}, 180_000);

afterAll(async () => {
  await gateway.close();
  await rm(folder, { recursive: true, force: true });
});

describe("the packed client", () => {
  it("holds its build alone, and declares no dependency", () => {
    expect(packed.files.filter((path) => path !== "package.json" && !path.startsWith("dist/"))).toEqual([]);
    expect(packed.files).toContain("dist/index.js");
    expect(packed.files).toContain("dist/index.d.ts");
    expect(packed.bundled).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(ROOT, "packages/client/package.json"), "utf8")) as Record<string, unknown>;
    expect([manifest.dependencies, manifest.peerDependencies]).toEqual([undefined, undefined]);
    // The tarball's size, for docs/benchmarks.md.
    console.log(`norsk-manager-client tarball: ${String(statSync(packed.tarball).size)} bytes`);
  });

  it("installs alone: the folder's node_modules holds the client and nothing else", async () => {
    expect((await readdir(join(folder, "node_modules"))).filter((name) => !name.startsWith("."))).toEqual(["norsk-manager-client"]);
  });

  it("type-checks the tour against its declarations, as a user's strict project", async () => {
    await writeFile(join(folder, "tour.ts"), tourProgram(readFileSync(join(ROOT, TOUR), "utf8")));
    const options = {
      compilerOptions: {
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        lib: ["ES2022", "DOM"],
        noEmit: true,
        typeRoots: [join(ROOT, "node_modules/@types")],
        types: ["node"],
      },
      files: ["tour.ts"],
    };
    await writeFile(join(folder, "tsconfig.json"), JSON.stringify(options));
    await writeFile(join(folder, "package.json"), JSON.stringify({ name: "user", private: true, type: "module" }));
    await run(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(folder, "tsconfig.json")]).catch((error: unknown) => {
      throw new Error(`the tour does not type-check: ${String((error as { stdout?: string }).stdout)}`);
    });
  }, 60_000);

  it("runs the tour against a gateway", async () => {
    const program = ts.transpileModule(tourProgram(readFileSync(join(ROOT, TOUR), "utf8")), {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
    }).outputText;
    await writeFile(join(folder, "tour.mjs"), program);
    const { stdout } = await run(process.execPath, [join(folder, "tour.mjs")], { cwd: folder, env: { ...process.env, GATEWAY_URL: gateway.url }, timeout: 30_000 });
    const lines = stdout.trim().split("\n");
    expect(lines[0]).toBe("tour-1 pre 2026-12-24T18:00:00.000Z");
    expect(lines).toContain("found tour-1");
    expect(lines).toContain("Christmas Eve stream (4K)");
    expect(lines).toContain("taken: a different job with this jobId already exists");
    expect(lines).toContain("updated: post");
    expect(lines).toContain("watching 1");
    expect(lines).toContain("as the SDK has it: bigint 2026-12-24T18:00:00.000Z");
    expect(lines).toContain("and back: true");
    expect(lines.at(-1)).toBe("done");
    expect(await gateway.jobs()).toEqual([]);
  }, 60_000);
});
