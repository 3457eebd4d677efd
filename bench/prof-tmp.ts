import { mkdtemp } from "node:fs/promises";
import { launchChromium } from "../test/helpers/browser.js";
import { startChild } from "./processes.js";
const dataDir = await mkdtemp("/tmp/prof-");
const gw = await startChild([`dist/src/main.js`, "--port", "0", "--data-dir", dataDir], /listening on (http:\/\/[^\s]+)/);
const res: Record<string, number[]> = { plain: [], nomodels: [], tiny: [] };
for (let i = 0; i < 4; i++) for (const mode of ["plain", "nomodels", "tiny"]) {
  const b = await launchChromium();
  const p = b.context.pages()[0] ?? (await b.context.newPage());
  if (mode === "nomodels") await p.route("**/swagger-initializer.js", async (route) => { const r = await route.fetch(); const body = (await r.text()).replace('"displayRequestDuration":true', '"displayRequestDuration":true,"defaultModelsExpandDepth":-1'); await route.fulfill({ response: r, body }); });
  if (mode === "tiny") await p.route("**/docs/json", async (route) => { await route.fulfill({ contentType: "application/json", body: JSON.stringify({ openapi: "3.1.0", info: { title: "t", version: "1" }, paths: { "/x": { get: { tags: ["jobs"], operationId: "createJob", responses: { 200: { description: "ok" } } } } } }) }); });
  const t0 = Date.now();
  await p.goto(`${gw.address}/docs`, { waitUntil: "domcontentloaded" });
  const dcl = Date.now() - t0;
  await p.locator(".opblock").first().waitFor();
  res[mode]!.push(Date.now() - t0 - dcl);
  await b.close();
}
for (const [k, v] of Object.entries(res)) console.log(k, "after DCL", v.join(","), "median", [...v].sort((a, b) => a - b)[2]);
await gw.stop();
