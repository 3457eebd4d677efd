// The lines of a byte stream, decoded as UTF-8 as they arrive, each without its end (LF, CRLF,
// or a lone CR, as Server-Sent Events allow). Read with the stream's reader, not by async
// iteration, which not every browser gives a ReadableStream.
export async function* linesOf(body: ReadableStream<Uint8Array>): AsyncGenerator<string, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  // A CR that ended the last chunk: an LF at the start of the next one belongs to it.
  let afterCr = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      if (afterCr && buffer.startsWith("\n")) buffer = buffer.slice(1);
      afterCr = false;
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const char = buffer[i];
        if (char !== "\n" && char !== "\r") continue;
        yield buffer.slice(start, i);
        if (char === "\r") {
          if (i + 1 === buffer.length) afterCr = true;
          else if (buffer[i + 1] === "\n") i++;
        }
        start = i + 1;
      }
      buffer = buffer.slice(start);
    }
    buffer += decoder.decode();
    if (buffer !== "") yield buffer;
  } finally {
    // A consumer that stops early (break, an abort) cancels the body: the connection is freed
    // and the server sees the client go.
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
