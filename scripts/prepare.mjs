// npm's prepare step (after `npm ci` and `npm install` in a checkout, and before `npm pack`):
// builds every package's dist/ (scripts/build.mjs), so that `npm start` serves from the build
// instead of compiling on each start. Where the dev dependencies are not installed (`npm ci
// --omit=dev` in a checkout) there is nothing to build with: it says so and leaves dist/ as it
// is, rather than failing the install.
import { existsSync } from "node:fs";
import { build } from "./build.mjs";

if (!existsSync("node_modules/typescript/bin/tsc")) {
  process.stderr.write("prepare: typescript is not installed (dev dependencies omitted); dist/ not built\n");
} else {
  build();
}
