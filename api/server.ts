// The HTTP server around the Koa app: request timeouts, and the answer to a request Node cannot parse or that timed out
// before its body arrived (those never reach Koa). Every answer carries the error envelope, its own reason phrase
// (a 431 says "Request Header Fields Too Large") and `X-Content-Type-Options: nosniff` like the app's answers.
import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { newId } from '../domain/ids.ts';

/** Connections whose request Node ended for taking longer than the request timeout; the app logs their request as 408. */
const timedOut = new WeakSet<object>();

export function requestTimedOut(socket: object | null | undefined): boolean {
  return socket != null && timedOut.has(socket);
}

/** The status and error code of each failure Node reports on a connection before (or instead of) the app answering. */
function clientErrorAnswer(code: string | undefined): { status: number; error_code: string; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, error_code: 'VALIDATION_FAILED', message: 'The request headers are too large; send fewer or shorter headers.' };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, error_code: 'REQUEST_TIMEOUT', message: 'The request was not received in time; send it again (with its whole body).' };
  }
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') {
    return {
      status: 413,
      error_code: 'PAYLOAD_TOO_LARGE',
      message: 'The chunk extensions of the request body are too large; send a plain chunked or sized body.',
    };
  }
  return {
    status: 400,
    error_code: 'VALIDATION_FAILED',
    message: `The HTTP request could not be parsed (${code ?? 'malformed request'}); send a well-formed HTTP/1.1 request.`,
  };
}

/** A response already on its way on this connection cannot be replaced: writing would corrupt what the client reads. */
function answerStarted(socket: Duplex): boolean {
  const message = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  return message?.headersSent === true;
}

export function answerClientError(logger: Logger, error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') timedOut.add(socket);
  if (!socket.writable || error.code === 'ECONNRESET' || answerStarted(socket)) {
    socket.destroy();
    return;
  }
  const answer = clientErrorAnswer(error.code);
  const request_id = newId('req');
  // Not an error of the service: the client sent something unreadable, or too slowly.
  logger.info({ request_id, status: answer.status, error_code: answer.error_code, reason: error.code }, 'request not read');
  const details = answer.status === 408 ? { timeout: true } : [{ path: '/', message: 'malformed HTTP request' }];
  const body = JSON.stringify({ code: answer.error_code, message: answer.message, details, request_id });
  socket.end(
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nX-Request-Id: ${request_id}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The API's HTTP server. A request whose headers and body have not all arrived within `request_timeout_seconds` is
 * answered 408; Node checks the timeout every quarter of it (at most every 30 s, its default).
 */
export function createApiServer(app: Koa, options: { logger: Logger; request_timeout_seconds: number }): Server {
  const request_timeout_ms = options.request_timeout_seconds * 1000;
  const server = createServer(
    { requestTimeout: request_timeout_ms, connectionsCheckingInterval: Math.min(30_000, Math.max(250, request_timeout_ms / 4)) },
    app.callback(),
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => answerClientError(options.logger, error, socket));
  return server;
}
