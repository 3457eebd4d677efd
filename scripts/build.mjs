// Builds every package's dist/, each after the packages it imports: the contract, the
// reference Manager, then the gateway. A package is built against the others' dist/ (its
// declarations), as it is when installed, never against their sources.
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";

const tsc = "node_modules/typescript/bin/tsc";

/** The folders that hold a tsconfig.build.json, in build order. */
export const BUILD_ORDER = ["packages/contract", "packages/reference-manager", "."];

export function build() {
  for (const folder of BUILD_ORDER) {
    rmSync(`${folder}/dist`, { recursive: true, force: true });
    execFileSync(process.execPath, [tsc, "-p", `${folder}/tsconfig.build.json`], { stdio: "inherit" });
  }
  const commit = gitCommit();
  // The gateway's --version, start-up line and gateway_build_info read it (src/build-info.ts).
  if (commit !== undefined) writeFileSync("dist/build-info.json", `${JSON.stringify({ commit })}\n`);
}

/** The commit of the checkout being built; undefined outside a git checkout or without git. */
function gitCommit() {
  try {
    return execFileSync("git", ["rev-parse", "--verify", "HEAD"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) build();
