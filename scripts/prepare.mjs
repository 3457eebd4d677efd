// npm's prepare step (after `npm ci` and `npm install` in a checkout, and before `npm pack`):
// builds dist/, so that `npm start` serves from the build instead of compiling on each start.
// Where the dev dependencies are not installed (`npm ci --omit=dev` in a checkout) there is
// nothing to build with: it says so and leaves dist/ as it is, rather than failing the install.
import { execFileSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";

const tsc = "node_modules/typescript/bin/tsc";
if (!existsSync(tsc)) {
  process.stderr.write("prepare: typescript is not installed (dev dependencies omitted); dist/ not built\n");
} else {
  rmSync("dist", { recursive: true, force: true });
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { stdio: "inherit" });
}
