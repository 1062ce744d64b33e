// A tiny real HTTP server for fakes of external services: it listens on a random localhost port,
// records every request it receives (for assertions) and hands each one to the fake's handler.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Fakes refuse bodies above this size, like a real service would. */
export const FAKE_BODY_BYTES_MAX = 8 * 1024 * 1024;

export type RecordedRequest = {
  method: string;
  path: string;
  query: URLSearchParams;
  /** lower-cased header names, as Node delivers them */
  headers: Record<string, string>;
  body_text: string;
  /** the parsed JSON body, or undefined when the body is not JSON */
  body: unknown;
};

/**
 * `destroy: true` drops the connection without a reply, like a service that is down. `hang: true` keeps the connection
 * open and never answers; `partial: true` sends the status, the headers (with the whole body's Content-Length) and the
 * first half of the body, then nothing more: a service stuck before or in the middle of its answer. Both end with the
 * server.
 */
export type FakeReply = {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  text?: string;
  destroy?: boolean;
  hang?: boolean;
  partial?: boolean;
};

export type FakeHandler = (request: RecordedRequest) => FakeReply | Promise<FakeReply>;

export type FakeServer = {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
};

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > FAKE_BODY_BYTES_MAX) {
        reject(new Error(`fake server: request body above FAKE_BODY_BYTES_MAX (${FAKE_BODY_BYTES_MAX})`));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function flatHeaders(request: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function send(response: ServerResponse, reply: FakeReply): void {
  if (reply.destroy) {
    response.socket?.destroy();
    return;
  }
  if (reply.hang) return;
  const headers: Record<string, string> = { ...(reply.headers ?? {}) };
  let payload = '';
  if (reply.text !== undefined) {
    payload = reply.text;
    headers['content-type'] ??= 'text/plain; charset=utf-8';
  } else if (reply.body !== undefined) {
    payload = JSON.stringify(reply.body);
    headers['content-type'] ??= 'application/json';
  }
  if (reply.partial) {
    response.writeHead(reply.status, { ...headers, 'content-length': String(Buffer.byteLength(payload)) });
    response.write(payload.slice(0, Math.floor(payload.length / 2)));
    return;
  }
  response.writeHead(reply.status, headers);
  response.end(payload);
}

export async function startFakeServer(handler: FakeHandler): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((request, response) => {
    readBody(request)
      .then(async (bodyText) => {
        const url = new URL(request.url ?? '/', 'http://fake.local');
        let body: unknown;
        try {
          body = bodyText.length > 0 ? JSON.parse(bodyText) : undefined;
        } catch {
          body = undefined;
        }
        const recorded: RecordedRequest = {
          method: request.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          headers: flatHeaders(request),
          body_text: bodyText,
          body,
        };
        requests.push(recorded);
        send(response, await handler(recorded));
      })
      .catch((error: unknown) => {
        if (!response.headersSent) send(response, { status: 500, body: { error: String(error) } });
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * What a fake AI provider does with the next call: return an object, fail with a status, send raw text, or never
 * answer — `before_headers`: the connection stays open and nothing comes; `mid_body`: the status, the headers and half
 * of an answer come, then nothing more.
 */
export type AiFakeScript =
  | AiFakeAnswer
  | { error_status: number; message?: string; headers?: Record<string, string> }
  | { no_answer: 'before_headers' | 'mid_body' };

/** A script the fake answers with 200: an object in the provider's structured form, or raw text. */
export type AiFakeAnswer =
  | { object: unknown; usage?: { input_tokens: number; output_tokens: number } }
  | { raw_text: string; usage?: { input_tokens: number; output_tokens: number } };

/** A call that never answers, as the fake's reply; `answer` is the reply it would have sent, half of which goes for mid_body. */
export function noAnswer(script: { no_answer: 'before_headers' | 'mid_body' }, answer: FakeReply): FakeReply {
  return script.no_answer === 'before_headers' ? { status: 200, hang: true } : { ...answer, partial: true };
}

export const AI_FAKE_DEFAULT_USAGE = { input_tokens: 11, output_tokens: 7 };

/** Scripts consumed in order; when none is queued the fake uses `fallback`. */
export class ScriptQueue {
  #queue: AiFakeScript[] = [];
  fallback: AiFakeScript = { object: {} };
  enqueue(...scripts: AiFakeScript[]): void {
    this.#queue.push(...scripts);
  }
  next(): AiFakeScript {
    return this.#queue.shift() ?? this.fallback;
  }
}

/** A fake AI provider: the server, what it received, and the scripted replies. */
export type AiFake = FakeServer & {
  /** The base URL to hand the SDK (what `base_url` means for this provider). */
  base_url: string;
  script: ScriptQueue;
  /** When set, a request carrying any other key gets the provider's real 401 reply. */
  expected_api_key?: string;
};
