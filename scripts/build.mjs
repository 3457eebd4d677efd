// Builds every package's dist/, each after the packages it imports: the contract, the
// reference Manager, then the gateway. A package is built against the others' dist/ (its
// declarations), as it is when installed, never against their sources.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";

const tsc = "node_modules/typescript/bin/tsc";

/** The folders that hold a tsconfig.build.json, in build order. */
export const BUILD_ORDER = ["packages/contract", "packages/reference-manager", "."];

export function build() {
  for (const folder of BUILD_ORDER) {
    rmSync(`${folder}/dist`, { recursive: true, force: true });
    execFileSync(process.execPath, [tsc, "-p", `${folder}/tsconfig.build.json`], { stdio: "inherit" });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) build();
