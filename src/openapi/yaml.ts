// The document as YAML for people to read: block style for its structure, flow style where
// that reads better and is shorter. Examples are data, written on one line each, as JSON would
// be; a schema property on one line when it fits in PROPERTY_WIDTH characters, and any other
// collection when it fits in FLOW_WIDTH. Nothing is folded: a paragraph of text
// stays on its line (YAML's folding would add indentation, not meaning). No anchors or aliases.
import { Document, isCollection, isMap, visit } from "yaml";
import type { Node, Pair } from "yaml";

// Wide enough for a property, a parameter, a `required` list or a reference with its
// description to stay on one line: block style where a line would be longer.
const FLOW_WIDTH = 300;
const PROPERTY_WIDTH = 300;

function flowWidth(node: Node): number {
  return JSON.stringify(node.toJSON()).length;
}

function flowAll(node: Node): void {
  visit(node, {
    Map: (_, map) => {
      map.flow = true;
    },
    Seq: (_, seq) => {
      seq.flow = true;
    },
  });
}

function keyOf(pair: Pair): unknown {
  return (pair.key as { value?: unknown } | null)?.value;
}

export function documentYaml(document: object): string {
  const doc = new Document(document, { aliasDuplicateObjects: false });
  visit(doc, {
    Pair: (_, pair, path) => {
      const key = keyOf(pair);
      // components/examples: each example's value on one line, under its name.
      if (key === "examples" && path.length === 4 && isMap(pair.value)) {
        for (const example of pair.value.items) if (isMap(example.value)) for (const field of example.value.items) if (isCollection(field.value)) flowAll(field.value);
        return visit.SKIP;
      }
      if ((key === "example" || key === "examples") && isCollection(pair.value)) {
        flowAll(pair.value);
        return visit.SKIP;
      }
      if (key === "properties" && isMap(pair.value)) {
        for (const property of pair.value.items) if (isCollection(property.value) && flowWidth(property.value) <= PROPERTY_WIDTH) flowAll(property.value);
      }
      return undefined;
    },
    Map: (_, map) => {
      if (flowWidth(map) <= FLOW_WIDTH) map.flow = true;
    },
    Seq: (_, seq) => {
      if (flowWidth(seq) <= FLOW_WIDTH) seq.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0, indentSeq: false, flowCollectionPadding: false });
}
