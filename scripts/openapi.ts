// `npm run openapi`: writes openapi.yaml at the repository root from the route schemas, the
// search filters' reference from their table, the table of scopes in README.md and
// docs/operations/authentication.md from the catalogue,
// and the client's types and operation catalogue from the document. Run it after changing a route or a schema,
// and commit the result; test/openapi/document.test.ts, search-filters.test.ts and
// client-generated.test.ts and scopes-table.test.ts fail while the committed files differ from
// what is generated.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { generateOpenApiYaml } from "../src/openapi-yaml.js";
import { SEARCH_FILTERS_DOC, searchFiltersMarkdown } from "../src/openapi/search-filters.js";
import { SCOPES_TABLE_FILES, withScopesTable } from "../src/openapi/scopes-table.js";
import { clientFiles } from "./client-generate.js";

const target = new URL("../openapi.yaml", import.meta.url);
const yamlText = await generateOpenApiYaml();
await writeFile(target, yamlText);
process.stdout.write(`wrote ${target.pathname}\n`);

for (const [path, text] of Object.entries(await clientFiles(yamlText))) {
  const file = new URL(`../${path}`, import.meta.url);
  await mkdir(new URL(".", file), { recursive: true });
  await writeFile(file, text);
  process.stdout.write(`wrote ${file.pathname}\n`);
}

const filters = new URL(`../${SEARCH_FILTERS_DOC}`, import.meta.url);
await mkdir(new URL(".", filters), { recursive: true });
await writeFile(filters, searchFiltersMarkdown());
process.stdout.write(`wrote ${filters.pathname}\n`);

for (const path of SCOPES_TABLE_FILES) {
  const file = new URL(`../${path}`, import.meta.url);
  await writeFile(file, withScopesTable(await readFile(file, "utf8"), path));
  process.stdout.write(`wrote ${file.pathname} (its table of scopes)\n`);
}
