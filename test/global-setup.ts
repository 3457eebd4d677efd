// Builds dist/ once per test run: the end-to-end tests start the built command
// (`node dist/src/main.js`), exactly what `npm start` and the package's bin run.
import { execFileSync } from "node:child_process";

export default function setup(): void {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
}
