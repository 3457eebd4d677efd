// `npm run openapi`: writes openapi.yaml at the repository root from the route schemas, the
// search filters' reference from their table, and README.md's table of scopes from the catalogue. Run it after changing a route or a schema,
// and commit the result; test/openapi/document.test.ts and search-filters.test.ts fail while
// the committed files differ from what is generated.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { generateOpenApiYaml } from "../src/openapi-yaml.js";
import { SEARCH_FILTERS_DOC, searchFiltersMarkdown } from "../src/openapi/search-filters.js";
import { withScopesTable } from "../src/openapi/scopes-table.js";

const target = new URL("../openapi.yaml", import.meta.url);
await writeFile(target, await generateOpenApiYaml());
process.stdout.write(`wrote ${target.pathname}\n`);

const filters = new URL(`../${SEARCH_FILTERS_DOC}`, import.meta.url);
await mkdir(new URL(".", filters), { recursive: true });
await writeFile(filters, searchFiltersMarkdown());
process.stdout.write(`wrote ${filters.pathname}\n`);

const readme = new URL("../README.md", import.meta.url);
await writeFile(readme, withScopesTable(await readFile(readme, "utf8")));
process.stdout.write(`wrote ${readme.pathname} (its table of scopes)\n`);
