// client.nodes: cloud and physical nodes.
import type { QueryOf } from "../core/operation-types.js";
import type { RequestOptions } from "../core/options.js";
import type { Transport } from "../core/transport.js";
import type { AwsNode, AwsNodeInput, Node, OciNode, OciNodeInput, PhysicalNodeUpdate, PhysicalNodeUpdateInput } from "../types.js";

export class Nodes {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** The nodes of the Manager's current picture, narrowed by cloud, tag and state. */
  async list(query: QueryOf<"nodes"> = {}, options: RequestOptions = {}): Promise<Node[]> {
    const { value } = await this.#transport.json({ operation: "nodes", query }, options);
    return (value as { nodes: Node[] }).nodes;
  }

  async get(nodeId: string, options: RequestOptions = {}): Promise<Node> {
    const { value } = await this.#transport.json({ operation: "nodeById", path: { nodeId } }, options);
    return value as Node;
  }

  /** Asks for an AWS node (202: accepted, not yet started). Never retried. */
  async createAws(node: AwsNodeInput, options: RequestOptions = {}): Promise<AwsNode> {
    const { value } = await this.#transport.json({ operation: "createAwsNode", body: node }, options);
    return value as AwsNode;
  }

  /** Asks for an OCI node (202: accepted, not yet started). Never retried. */
  async createOci(node: OciNodeInput, options: RequestOptions = {}): Promise<OciNode> {
    const { value } = await this.#transport.json({ operation: "createOciNode", body: node }, options);
    return value as OciNode;
  }

  /** Asks for the node to be terminated (202). */
  async terminate(nodeId: string, options: RequestOptions = {}): Promise<void> {
    await this.#transport.json({ operation: "terminateNode", path: { nodeId } }, options);
  }

  /** Registers or updates a physical node. */
  async updatePhysical(id: string, update: PhysicalNodeUpdateInput, options: RequestOptions = {}): Promise<PhysicalNodeUpdate> {
    const { value } = await this.#transport.json({ operation: "updatePhysicalNode", path: { id }, body: update }, options);
    return value as PhysicalNodeUpdate;
  }
}
