// A streaming GET read with node's own HTTP client, for the tests of the event streams on the
// wire: the text as it arrives, when each piece arrived, and whether the response ended. The
// response may be paused (a client that stops reading) and resumed.
import { request as httpRequest } from "node:http";
import type { IncomingMessage } from "node:http";

export interface WireStream {
  readonly response: IncomingMessage;
  readonly state: {
    /** Everything received so far, decoded as UTF-8. */
    text: string;
    ended: boolean;
    /** Each piece as it arrived, with Date.now() at its arrival. */
    readonly chunks: { readonly at: number; readonly text: string }[];
  };
  close(): void;
}

export async function openStream(url: string, headers: Record<string, string> = {}): Promise<WireStream> {
  const state: WireStream["state"] = { text: "", ended: false, chunks: [] };
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    httpRequest(url, { headers }, resolve).on("error", reject).end();
  });
  response.setEncoding("utf8");
  response.on("data", (chunk: string) => {
    state.text += chunk;
    state.chunks.push({ at: Date.now(), text: chunk });
  });
  response.on("end", () => {
    state.ended = true;
  });
  return { response, state, close: () => response.destroy() };
}

/** When the text received first held `count` occurrences of `frame` (Date.now()), if it has. */
export function arrivalOf(stream: WireStream, frame: string, count: number): number | undefined {
  let text = "";
  for (const chunk of stream.state.chunks) {
    text += chunk.text;
    if (text.split(frame).length - 1 >= count) return chunk.at;
  }
  return undefined;
}
