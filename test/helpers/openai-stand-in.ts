import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the stand-in received: path below the base URL, headers and the JSON body. */
export interface StandInRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/**
 * What the stand-in answers one request with (queued with `next`), else the default: a chat
 * completion echoing the last user message (streamed when asked), or a 1x1 PNG image.
 * - `content`: the assistant message (or the tool call's arguments when the request named a tool);
 * - `status` + `error`: an error answer in the API's shape (`{ error: { message, type, code } }`);
 * - `headers`: extra headers (`retry-after`);
 * - `raw`: this body as it is (malformed JSON);
 * - `hang`: never answer; `cutStream`: a stream that stops after its first delta, without `[DONE]`.
 */
export interface StandInReply {
  content?: string;
  status?: number;
  error?: string;
  headers?: Record<string, string>;
  raw?: string;
  hang?: boolean;
  cutStream?: boolean;
}

export interface OpenAiStandIn {
  /** The base URL to configure (`http://127.0.0.1:<port>/v1`). */
  baseUrl: string;
  requests: StandInRequest[];
  /** Queues answers for the next requests, in order. */
  next(...replies: StandInReply[]): void;
  /** The key every request must carry as `Authorization: Bearer` (401 otherwise); undefined: none needed. */
  apiKey: string | undefined;
  /** What a request without a queued answer gets (default: the echo); reset it with `undefined`. */
  reply: ((req: StandInRequest) => StandInReply) | undefined;
  /** Added to every answer before its first byte (a provider's latency). */
  latencyMs: number;
  /** Requests being answered now. */
  open(): number;
  close(): Promise<void>;
}

/** The smallest valid PNG (1x1, transparent). */
export const ONE_PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

const now = () => Math.floor(Date.now() / 1000);

/** What `GET /v1/models` lists. */
export const STAND_IN_MODELS = ['gpt-4o-mini', 'gpt-image-1', 'stand-in-translate'];

function lastUserText(body: Record<string, unknown>): string {
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: string; content?: unknown }[]) : [];
  const last = [...messages].reverse().find((m) => m.role === 'user');
  return typeof last?.content === 'string' ? last.content : '';
}

/**
 * A local HTTP server that speaks the OpenAI wire format as the public API reference documents it:
 * `POST /v1/chat/completions` (JSON, or server-sent `chat.completion.chunk` events ending with
 * `data: [DONE]` when `stream` is true, the usage chunk with `stream_options.include_usage`),
 * `response_format` and `tools` taken as given, `POST /v1/images/generations` with `b64_json`, and
 * the API's error answers (401, 429 with Retry-After, 500), a hang, malformed JSON, a cut stream.
 */
export async function startOpenAiStandIn(): Promise<OpenAiStandIn> {
  const queue: StandInReply[] = [];
  const requests: StandInRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  let open = 0;
  const state = {
    apiKey: undefined as string | undefined,
    latencyMs: 0,
    reply: undefined as ((req: StandInRequest) => StandInReply) | undefined,
  };

  const sendError = (
    res: http.ServerResponse,
    status: number,
    message: string,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    const type = status === 401 ? 'invalid_request_error' : status === 429 ? 'requests' : 'server_error';
    res.end(JSON.stringify({ error: { message, type, param: null, code: status === 401 ? 'invalid_api_key' : null } }));
  };

  const chat = (res: http.ServerResponse, body: Record<string, unknown>, reply: StandInReply) => {
    const model = typeof body.model === 'string' ? body.model : 'stand-in';
    const tools = Array.isArray(body.tools) ? (body.tools as { function?: { name?: string } }[]) : [];
    const content = reply.content ?? `Echo: ${lastUserText(body)}`;
    const usage = { prompt_tokens: lastUserText(body).length, completion_tokens: content.length, total_tokens: 0 };
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
    const id = `chatcmpl-${requests.length}`;
    if (body.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
      const chunk = (delta: Record<string, unknown>, finish: string | null) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: now(), model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
      const pieces = content.match(/\S+\s*/g) ?? [content];
      res.write(chunk({ role: 'assistant', content: '' }, null));
      if (reply.cutStream) {
        res.write(chunk({ content: pieces[0] }, null));
        // The connection drops once what was written has left (a provider dying mid-answer).
        setTimeout(() => res.destroy(), 50);
        return;
      }
      for (const piece of pieces) res.write(chunk({ content: piece }, null));
      res.write(chunk({}, 'stop'));
      if ((body.stream_options as { include_usage?: boolean } | undefined)?.include_usage)
        res.write(
          `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: now(), model, choices: [], usage })}\n\n`,
        );
      res.end('data: [DONE]\n\n');
      return;
    }
    const tool = tools[0]?.function?.name;
    const message = tool
      ? {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: tool, arguments: content } }],
        }
      : { role: 'assistant', content, refusal: null };
    res.writeHead(200, { 'content-type': 'application/json', ...reply.headers });
    res.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created: now(),
        model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: tool ? 'tool_calls' : 'stop' }],
        usage,
      }),
    );
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      open++;
      res.on('close', () => open--);
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        return sendError(res, 400, 'We could not parse the JSON body of your request.');
      }
      const path = (req.url ?? '').replace(/^\/v1/, '');
      const seen = { path, headers: req.headers, body };
      requests.push(seen);
      const reply = queue.shift() ?? state.reply?.(seen) ?? {};
      if (state.latencyMs) await new Promise((r) => setTimeout(r, state.latencyMs));
      if (reply.hang) return void hanging.add(res);
      if (state.apiKey !== undefined && req.headers.authorization !== `Bearer ${state.apiKey}`)
        return sendError(res, 401, 'Incorrect API key provided.');
      if (reply.status && reply.status >= 400)
        return sendError(res, reply.status, reply.error ?? `stand-in error ${reply.status}`, reply.headers);
      if (reply.raw !== undefined) {
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
        return void res.end(reply.raw);
      }
      if (req.method === 'POST' && path === '/chat/completions') return chat(res, body, reply);
      if (req.method === 'GET' && path === '/models') {
        // OpenAI's list shape: the models the stand-in answers for (any name works for the others).
        res.writeHead(200, { 'content-type': 'application/json' });
        const data = STAND_IN_MODELS.map((id) => ({ id, object: 'model', created: now(), owned_by: 'stand-in' }));
        return void res.end(JSON.stringify({ object: 'list', data }));
      }
      if (req.method === 'POST' && path === '/images/generations') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(
          JSON.stringify({ created: now(), data: [{ b64_json: reply.content ?? ONE_PIXEL_PNG.toString('base64') }] }),
        );
      }
      sendError(res, 404, `Invalid URL (${req.method} /v1${path})`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    next: (...replies) => void queue.push(...replies),
    get apiKey() {
      return state.apiKey;
    },
    set apiKey(v) {
      state.apiKey = v;
    },
    get reply() {
      return state.reply;
    },
    set reply(v) {
      state.reply = v;
    },
    get latencyMs() {
      return state.latencyMs;
    },
    set latencyMs(v) {
      state.latencyMs = v;
    },
    open: () => open,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
