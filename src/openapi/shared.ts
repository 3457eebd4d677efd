// What several operations say alike is said once. A problem response, a parameter or a
// response header that two or more operations document identically becomes a component
// (components/responses, /parameters, /headers) that each of them refers to by $ref; so does
// an example body given in two or more places (components/examples, named after the body's
// schema, as a one-entry `examples` in place of `example`). A shared
// problem response keeps the example of the first operation that uses it, whose `instance` is
// that operation's path; everything else is the same for every use, or it would not be shared.
import { STATUS_CODES } from "node:http";
import { operationsOf } from "./document.js";
import type { Media, OpenApiDocument, Operation, Response } from "./document.js";

type JsonObject = Record<string, unknown>;

interface Use {
  readonly owner: Record<string, unknown>;
  readonly key: string;
}

/** Uses grouped by what they say: the value's JSON with the parts `sameness` leaves out. */
class Alike {
  private readonly groups = new Map<string, { readonly value: unknown; readonly uses: Use[] }>();

  add(owner: Record<string, unknown>, key: string, sameness: unknown): void {
    const text = JSON.stringify(sameness);
    const group = this.groups.get(text) ?? { value: owner[key], uses: [] };
    group.uses.push({ owner, key });
    this.groups.set(text, group);
  }

  /** Each group of two or more uses becomes `components[name]`, each use a $ref to it. */
  share(components: JsonObject, section: string, nameOf: (value: unknown, first: Use) => string): void {
    for (const { value, uses } of this.groups.values()) {
      const [first] = uses;
      if (first === undefined || uses.length < 2) continue;
      const name = freeName(components, nameOf(value, first));
      components[name] = value;
      for (const { owner, key } of uses) owner[key] = { $ref: `#/components/${section}/${name}` };
    }
  }
}

/** `name`, or with the first free number after it. */
function freeName(taken: JsonObject, name: string): string {
  if (!(name in taken)) return name;
  for (let n = 2; ; n++) if (!(`${name}${String(n)}` in taken)) return `${name}${String(n)}`;
}

/** "Payload Too Large" → "PayloadTooLarge"; "if-match" → "IfMatch". */
function pascal(words: string): string {
  return words
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== "")
    .map((word) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`)
    .join("");
}

export function shareAlike(doc: OpenApiDocument, problemMedia: string): void {
  const responses = new Alike();
  const parameters = new Alike();
  const headers = new Alike();
  for (const { operation } of operationsOf(doc)) {
    addParameters(parameters, operation);
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      addHeaders(headers, response);
      if (response.content?.[problemMedia] !== undefined) responses.add(operation.responses as JsonObject, status, withoutInstance(response, problemMedia));
    }
  }
  const components = (doc.components ??= {}) as JsonObject;
  const section = (name: string): JsonObject => (components[name] ??= {}) as JsonObject;
  parameters.share(section("parameters"), "parameters", (value) => pascal(String((value as { name?: unknown }).name)));
  headers.share(section("headers"), "headers", (_value, first) => pascal(first.key));
  responses.share(section("responses"), "responses", (_value, first) => (first.key === "default" ? "OtherProblem" : pascal(STATUS_CODES[Number(first.key)] ?? first.key)));
  // After the responses: an example of a response said once is given once.
  shareExamples(doc);
}

/** Example bodies given alike in two or more places, each then `examples: {Name: {$ref}}`. */
function shareExamples(doc: OpenApiDocument): void {
  const uses = new Map<string, Media[]>();
  for (const media of bodiesOf(doc)) {
    if (media.example === undefined) continue;
    const text = JSON.stringify(media.example);
    uses.set(text, [...(uses.get(text) ?? []), media]);
  }
  const components = (doc.components ??= {}) as JsonObject;
  for (const [text, media] of uses) {
    const [first] = media;
    if (first === undefined || media.length < 2) continue;
    const section = (components.examples ??= {}) as JsonObject;
    const value = JSON.parse(text) as unknown;
    const schema = (first.schema?.$ref ?? first.schema?.anyOf?.[0]?.$ref)?.split("/").at(-1) ?? "Example";
    // A problem by its title ("Conflict"), anything else by its schema ("Job"; the first of an anyOf).
    const title = schema === "Problem" ? (value as { title?: unknown }).title : undefined;
    const name = freeName(section, typeof title === "string" ? pascal(title) : schema);
    section[name] = { value };
    for (const use of media) {
      Reflect.deleteProperty(use, "example");
      use.examples = { [name]: { $ref: `#/components/examples/${name}` } };
    }
  }
}

/** Every request and response body: those of the shared responses first, then each operation's. */
function bodiesOf(doc: OpenApiDocument): Media[] {
  const shared = Object.values(((doc.components as JsonObject | undefined)?.responses ?? {}) as Record<string, Response>);
  const contents = shared.map((response) => response.content);
  for (const { operation } of operationsOf(doc)) {
    contents.push(operation.requestBody?.content, ...Object.values(operation.responses ?? {}).map((response) => response.content));
  }
  return contents.flatMap((content) => Object.values(content ?? {}));
}

function addParameters(parameters: Alike, operation: Operation): void {
  const list = (operation.parameters ?? []) as unknown as Record<string, unknown>[];
  for (const [index, parameter] of list.entries()) {
    if (parameter.$ref === undefined) parameters.add(list as unknown as Record<string, unknown>, String(index), parameter);
  }
}

function addHeaders(headers: Alike, response: Response): void {
  const list = (response.headers ?? {}) as JsonObject;
  for (const [name, header] of Object.entries(list)) {
    if ((header as { $ref?: unknown }).$ref === undefined) headers.add(list, name, { name, header });
  }
}

/** The response as it would be for any operation: its problem example's instance left out. */
function withoutInstance(response: Response, problemMedia: string): unknown {
  const copy = JSON.parse(JSON.stringify(response)) as { content: Record<string, { example?: JsonObject }> };
  if (copy.content[problemMedia]?.example !== undefined) Reflect.deleteProperty(copy.content[problemMedia].example, "instance");
  return copy;
}
