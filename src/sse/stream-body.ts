// The body of one event-stream response: a Readable that fastify pipes into the response, fed
// by one gRPC server stream. Piping is what respects the socket's back-pressure (pipe stops
// reading while res.write() returns false and resumes on 'drain'); what the client has not
// taken yet waits in this Readable's buffer. That buffer is the per-client bound: the gRPC
// stream is read as fast as it comes, so a client that reads too slowly shows up here, as
// frames piling up, rather than as back-pressure that a Manager may or may not answer.
//
// The bound is on what queues BEHIND the oldest frame still waiting (the one in flight): that
// frame is never counted, so an event of any size reaches a client that keeps up, alone when
// nothing else is queued, and `bufferLimitBytes` bounds only the events that pile up behind it.
// An event's size is the Manager's business (bounded by --max-message-size); how far behind a
// client is, is the client's. The judgement is made once per event-loop turn, after the turn's
// writes (setImmediate), not at each frame: frames that arrive in one turn together and leave
// in the next are not a slow client. A client found too far behind gets a final `error` event
// and is closed; so does one whose stream fails (the Manager goes away) or is still open when
// the gateway shuts down.
import { Readable } from "node:stream";
import type { ServerResponse } from "node:http";
import type { GrpcError } from "norsk-manager-contract/grpc/errors.js";
import { ProblemError, deadlineExceeded } from "../http/problem.js";
import type { ProblemJson } from "../../schemas/common.js";
import type { EncodedEvent } from "./decoder.js";
import type { Frame, StreamFormat } from "./frames.js";
import { formatError, formatEvent, frameBytes, heartbeat } from "./frames.js";
import type { BytesStreamHandlers, OpenBytesStream } from "norsk-manager-contract/grpc/client.js";

export interface StreamSettings {
  /** Interval of the heartbeat, in ms. */
  readonly heartbeatMs: number;
  /**
   * Bytes a client may have waiting behind the frame in flight (the oldest not yet handed to
   * its socket, of any size) before it counts as too far behind.
   */
  readonly bufferLimitBytes: number;
}

/** What a stream tells whoever counts streams (the metrics); every method is optional to act on. */
export interface StreamObserver {
  /** The stream started: its answer is being sent. */
  opened(): void;
  /** One event queued for the client. */
  event(): void;
  heartbeat(): void;
  /** Closed for falling more than the buffer behind. */
  dropped(): void;
  /** The body is done with (any reason); only after opened(). */
  closed(): void;
}

export interface StreamBodyOptions extends StreamSettings {
  readonly format: StreamFormat;
  readonly open: OpenBytesStream;
  readonly decode: (bytes: Buffer) => EncodedEvent | undefined;
  /** How long the Manager may take to start the stream (its first message), in ms. */
  readonly startTimeoutMs: number;
  /** The Problem sent as the final error event for a failure (a thrown error). */
  readonly problemOf: (error: unknown) => ProblemJson;
  readonly response: ServerResponse;
  /** Told about a failure that ended the stream, for the log. */
  readonly onFailure?: (error: unknown) => void;
  /** Sent once the stream has started, before its first event (streamPreamble: SSE's retry: line). Default: nothing. */
  readonly preamble?: string;
  /** Told what the stream does, for the metrics. Default: no one. */
  readonly observer?: StreamObserver;
}

/** How long a stream that has ended may take to flush to its client before it is cut off. */
export const LINGER_MS = 10_000;

/**
 * The least time between two writes of events to one client: an event that comes sooner after
 * the last write waits, at most this long, to go out with the events that follow it. Each
 * write is a system call per client; with a thousand clients and a hundred events a second,
 * writing each event on its own keeps the gateway's CPU busy with writes alone and the clients
 * fall behind (docs/benchmarks.md, "Events"). An event after a quiet spell goes out at once.
 */
export const WRITE_INTERVAL_MS = 100;

/** The failure of a client that fell too far behind. */
export class SlowClientError extends Error {
  override readonly name = "SlowClientError";
}

export class StreamBody extends Readable {
  /** Bodies that queued a frame this turn; judged together once its writes are done. */
  static readonly #toJudge = new Set<StreamBody>();

  static #judgeLater(body: StreamBody): void {
    const first = StreamBody.#toJudge.size === 0;
    StreamBody.#toJudge.add(body);
    if (!first) return;
    setImmediate(() => {
      const bodies = [...StreamBody.#toJudge];
      StreamBody.#toJudge.clear();
      for (const each of bodies) each.#judge();
    });
  }

  /**
   * Settles when the Manager has started the stream (first message, or its end); rejects when
   * the call fails before that, or does not start in time. Until then nothing is sent, so the
   * route can still answer with an ordinary problem+json.
   */
  readonly started: Promise<void>;
  readonly #options: StreamBodyOptions;
  /** Cancels the upstream call; a no-op until open() has returned one. */
  #cancel: () => void = () => undefined;
  #startTimer: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #nextId = 1;
  #state: "starting" | "open" | "ended" = "starting";
  #start = { resolve: (): void => undefined, reject: (_error: unknown): void => undefined };
  /** Frames waiting for the next write (WRITE_INTERVAL_MS), and their size in bytes. */
  #pending: Frame[] = [];
  #pendingBytes = 0;
  #flushTimer: NodeJS.Timeout | undefined;
  #lastWrite = 0;
  /**
   * The sizes of the frames queued (held or pushed), oldest first from #queuedHead, and their
   * sum: what is still waiting is always a suffix of them, as frames leave from the front.
   */
  #queued: number[] = [];
  #queuedHead = 0;
  #queuedBytes = 0;

  constructor(options: StreamBodyOptions) {
    // The bound is enforced by hand (#send); highWaterMark only decides when pipe asks for more.
    super({ highWaterMark: 16 * 1024 });
    this.#options = options;
    this.started = new Promise((resolve, reject) => {
      this.#start = { resolve, reject };
    });
    try {
      this.#cancel = options.open(this.#handlers());
    } catch (error) {
      // A call that cannot even start is a failed start (an ordinary problem answer), not an
      // exception for whoever built the body.
      this.#failStart(error);
      return;
    }
    // Armed only once open() has returned: a timer must never fire for a call that is not there.
    if (this.#state === "starting") {
      this.#startTimer = setTimeout(() => {
        this.#failStart(deadlineExceeded("the Manager did not start the stream before the deadline"));
      }, options.startTimeoutMs);
    }
  }

  #handlers(): BytesStreamHandlers {
    const options = this.#options;
    return {
      message: (bytes) => {
        if (this.#state === "ended") return;
        let event: EncodedEvent | undefined;
        try {
          event = options.decode(bytes);
        } catch (error) {
          // A message that does not decode or convert: the stream cannot go on without a gap.
          // As the first, nothing has been sent: the route answers it (a 502 for the Manager's
          // bad data) as it answers any failed start.
          if (this.#state === "starting") {
            this.#failStart(error);
            return;
          }
          options.onFailure?.(error);
          this.fail(options.problemOf(error));
          return;
        }
        this.#opened();
        if (event === undefined) return;
        this.#send(formatEvent(options.format, event, this.#nextId++));
        options.observer?.event();
      },
      end: () => {
        this.#opened();
        this.#end(LINGER_MS);
      },
      error: (error: GrpcError) => {
        if (this.#state === "starting") this.#failStart(error);
        else if (this.#state === "open") {
          options.onFailure?.(error);
          this.fail(options.problemOf(error));
        }
      },
    };
  }

  /** Bytes waiting for the client: queued in this Readable, and held for the next write. */
  get waitingBytes(): number {
    return this.readableLength + this.#pendingBytes;
  }

  override _read(): void {
    // Data is pushed as the gRPC stream delivers it, not pulled.
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // The response closed (the client went away), or the body was never sent: stop the call.
    this.#stop();
    this.#state = "ended";
    callback(error);
  }

  /**
   * Ends the stream with a final error event carrying `problem` (e.g. at shutdown); one that has
   * not started yet fails its start with that problem instead.
   */
  fail(problem: ProblemJson, lingerMs = LINGER_MS): void {
    if (this.#state === "starting") this.#failStart(ProblemError.answering(problem));
    if (this.#state !== "open") return;
    this.#flush();
    this.push(formatError(this.#options.format, problem));
    this.#end(lingerMs);
  }

  #opened(): void {
    if (this.#state !== "starting") return;
    this.#state = "open";
    clearTimeout(this.#startTimer);
    const { observer } = this.#options;
    if (observer !== undefined) {
      observer.opened();
      this.once("close", () => { observer.closed(); });
    }
    const { preamble = "" } = this.#options;
    if (preamble !== "") {
      this.#track(Buffer.byteLength(preamble));
      this.push(preamble);
    }
    this.#heartbeat = setInterval(() => {
      // Only into an empty buffer: a client that is not reading needs no more bytes queued.
      if (this.waitingBytes !== 0) return;
      const frame = heartbeat(this.#options.format);
      this.#track(Buffer.byteLength(frame));
      this.push(frame);
      observer?.heartbeat();
    }, this.#options.heartbeatMs);
    this.#heartbeat.unref();
    this.#start.resolve();
  }

  #failStart(error: unknown): void {
    if (this.#state !== "starting") return;
    this.#stop();
    this.#state = "ended";
    this.#start.reject(error);
  }

  /** Queues one frame; whether the client is too far behind is judged at the end of the turn. */
  #send(frame: Frame): void {
    const bytes = frameBytes(frame);
    this.#pending.push(frame);
    this.#pendingBytes += bytes;
    this.#track(bytes);
    if (this.#flushTimer === undefined) {
      const wait = this.#lastWrite + WRITE_INTERVAL_MS - performance.now();
      if (wait <= 0) this.#flush();
      else this.#flushTimer = setTimeout(() => { this.#flush(); }, wait);
    }
    StreamBody.#judgeLater(this);
  }

  #track(bytes: number): void {
    this.#queued.push(bytes);
    this.#queuedBytes += bytes;
  }

  /**
   * Bytes waiting behind the frame in flight (the oldest still waiting, which is not counted
   * whatever its size); frames handed on to the response are forgotten here.
   */
  get behindBytes(): number {
    const waiting = this.waitingBytes;
    const queued = this.#queued;
    let head = this.#queuedHead;
    for (let size = queued[head]; size !== undefined && this.#queuedBytes - size >= waiting; size = queued[++head]) {
      this.#queuedBytes -= size;
    }
    if (head > 1024 && head * 2 > queued.length) {
      this.#queued = queued.slice(head);
      head = 0;
    }
    this.#queuedHead = head;
    const inFlight = this.#queued[head];
    return inFlight === undefined ? 0 : this.#queuedBytes - inFlight;
  }

  /** Ends the stream of a client more than the limit behind. */
  #judge(): void {
    if (this.#state !== "open" || this.behindBytes <= this.#options.bufferLimitBytes) return;
    const error = new SlowClientError(`the client fell more than ${this.#options.bufferLimitBytes} bytes behind`);
    this.#options.onFailure?.(error);
    this.#options.observer?.dropped();
    this.fail(this.#options.problemOf(error));
  }

  /**
   * Writes the frames waiting as one chunk, except that shared data (a large event's) is
   * handed on as its own chunk, by reference: one copy of it serves every client.
   */
  #flush(): void {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    if (this.#pending.length === 0) return;
    const pending = this.#pending;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#lastWrite = performance.now();
    let text = "";
    for (const frame of pending) {
      if (typeof frame === "string") {
        text += frame;
        continue;
      }
      text += frame.head;
      this.push(text);
      this.push(frame.data);
      text = frame.tail;
    }
    if (text !== "") this.push(text);
  }

  #stop(): void {
    clearTimeout(this.#startTimer);
    clearInterval(this.#heartbeat);
    clearTimeout(this.#flushTimer);
    if (this.#state !== "ended") this.#cancel();
  }

  /**
   * Ends the body; the response ends once the client has taken what is queued. A client that
   * does not take it within `lingerMs` (one that stopped reading) is disconnected, so that its
   * socket and buffers are not held for ever.
   */
  #end(lingerMs: number): void {
    if (this.#state !== "open") return;
    this.#flush();
    this.#stop();
    this.#state = "ended";
    this.push(null);
    const { response } = this.#options;
    if (response.writableFinished || response.destroyed) return;
    const timer = setTimeout(() => {
      if (!response.writableFinished) response.destroy();
    }, lingerMs);
    timer.unref();
    response.once("close", () => {
      clearTimeout(timer);
    });
  }
}
