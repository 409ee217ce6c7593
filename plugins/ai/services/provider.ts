import { setTimeout as sleep } from 'node:timers/promises';
import { errors as undiciErrors, request } from 'undici';
import { HttpError, isHttpError, type OutboundGuard, type ServiceMap, tooManyRequests } from '../../../kernel/index.ts';

/** What a provider call needs: the resolved settings of one kind (key in clear, in memory only). */
export interface ProviderSettings {
  provider: 'openai' | 'openai-compatible';
  baseUrl: string;
  model: string;
  apiKey: string | null;
  organization: string | null;
  temperature: number | null;
  maxOutputTokens: number | null;
  timeoutMs: number;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  messages: ChatMessage[];
  maxOutputTokens?: number;
  /** `response_format: { type: 'json_schema', json_schema: { name, schema, strict } }` (structured outputs). */
  jsonSchema?: { name: string; schema: Record<string, unknown>; strict: boolean };
  /** One function the model must call with its answer (for providers without structured outputs). */
  tool?: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ChatAnswer {
  text: string;
  model: string;
  usage: { inputTokens: number; outputTokens: number };
}

/** Largest provider answer read into memory: a chat answer, or an image in base64. */
const MAX_CHAT_BYTES = 8 * 1024 * 1024;
const MAX_IMAGE_BYTES = 48 * 1024 * 1024;
/** Longest wait for a Retry-After before another try. */
const MAX_RETRY_WAIT_MS = 10_000;

export const providerError = (status: number, code: string, message: string, headers?: Record<string, string>) =>
  new HttpError(status, code, message, undefined, headers);

/** The provider's own error message (`{ error: { message } }`), short, for the 502 we answer. */
function providerMessage(body: string): string {
  try {
    const m = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof m === 'string') return m.slice(0, 300);
  } catch {
    // not JSON: the status says enough
  }
  return '';
}

function retryAfterMs(headers: Record<string, string | string[] | undefined>): number | undefined {
  const ms = Number(headers['retry-after-ms']);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers['retry-after'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function isTimeout(err: unknown): boolean {
  return (
    err instanceof undiciErrors.HeadersTimeoutError ||
    err instanceof undiciErrors.BodyTimeoutError ||
    (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'))
  );
}

/**
 * A client of the OpenAI wire format (chat completions, SSE streaming, image generations) at any
 * base URL: OpenAI, Azure OpenAI's v1 API, Ollama, vLLM, LM Studio. Every call asks the kernel's
 * outbound guard first; with the gateway plugin loaded every connection is made by its pinned
 * dispatcher (address policy checked after resolution, the connection to that very address).
 * Neither prompts nor keys are logged or put in an error.
 */
export class ProviderClient {
  constructor(
    private readonly deps: {
      outboundGuard: OutboundGuard;
      outboundFetch: ServiceMap['outboundFetch'] | undefined;
      retries: number;
    },
  ) {}

  /**
   * The kernel's guard is asked before anything (under the sandbox profile not even a name is
   * resolved). With the gateway plugin loaded, the request runs on its `outboundFetch.dispatcher`,
   * whose connector resolves the host once, checks that address against the address policy and
   * connects to it: the connection goes to the address that was checked (no DNS rebinding).
   */
  private checkOutbound(url: URL): void {
    const refusal = this.deps.outboundGuard.refusal(url.hostname);
    if (refusal) throw providerError(403, 'OUTBOUND_REFUSED', `Outbound call refused: ${refusal}`);
  }

  private headers(s: ProviderSettings): Record<string, string> {
    const h: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (s.apiKey) {
      h.authorization = `Bearer ${s.apiKey}`;
      // Azure OpenAI takes its key in `api-key`; sent only to Azure's hosts.
      if (new URL(s.baseUrl).hostname.endsWith('.openai.azure.com')) h['api-key'] = s.apiKey;
    }
    if (s.organization) h['openai-organization'] = s.organization;
    return h;
  }

  /**
   * POSTs `body` to `path` under the base URL; 429 and 5xx are tried again after their Retry-After
   * (at most AI_RETRIES times, within the timeout). Resolves with a 2xx answer whose body is unread.
   */
  private async post(s: ProviderSettings, path: string, body: unknown, accept?: string) {
    return this.send(s, 'POST', path, body, accept);
  }

  /** One request to `path` under the base URL (the body JSON, when given), tried again as `post` says. */
  private async send(s: ProviderSettings, method: 'GET' | 'POST', path: string, body?: unknown, accept?: string) {
    const url = new URL(s.baseUrl.replace(/\/*$/, '/') + path);
    this.checkOutbound(url);
    const deadline = Date.now() + s.timeoutMs;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = { ...this.headers(s), ...(accept ? { accept } : {}) };
    for (let attempt = 0; ; attempt++) {
      const left = deadline - Date.now();
      if (left <= 0) throw timeout(s);
      let answer: Awaited<ReturnType<typeof request>>;
      try {
        answer = await request(url, {
          method,
          headers,
          ...(payload === undefined ? {} : { body: payload }),
          headersTimeout: left,
          bodyTimeout: s.timeoutMs,
          ...(this.deps.outboundFetch ? { dispatcher: this.deps.outboundFetch.dispatcher } : {}),
        });
      } catch (err) {
        if (isTimeout(err)) throw timeout(s);
        const e = err as { code?: string; message?: string };
        if (e?.code === 'OUTBOUND_REFUSED')
          throw providerError(403, 'OUTBOUND_REFUSED', e.message ?? 'Outbound call refused');
        throw providerError(
          502,
          'AI_PROVIDER_UNREACHABLE',
          `The AI provider at ${url.host} cannot be reached (${(err as { code?: string }).code ?? 'connection failed'})`,
        );
      }
      const { statusCode } = answer;
      if (statusCode >= 200 && statusCode < 300) return answer;
      const text = await readText(answer.body, 64 * 1024).catch(() => '');
      const retryable = statusCode === 429 || statusCode >= 500;
      const wait = Math.min(retryAfterMs(answer.headers) ?? 500 * 2 ** attempt, MAX_RETRY_WAIT_MS);
      if (retryable && attempt < this.deps.retries && Date.now() + wait < deadline) {
        await sleep(wait);
        continue;
      }
      const detail = providerMessage(text);
      const said = detail ? `: ${detail}` : '';
      if (statusCode === 429)
        throw tooManyRequests(
          `The AI provider is rate limiting this installation${said}`,
          (retryAfterMs(answer.headers) ?? 10_000) / 1000,
          'AI_PROVIDER_RATE_LIMITED',
        );
      if (statusCode === 401 || statusCode === 403)
        throw providerError(
          502,
          'AI_PROVIDER_UNAUTHORIZED',
          `The AI provider refused the configured key (${statusCode})${said}; check the AI settings`,
        );
      // `providerStatus`: a caller may try another form of the request (tool calling after a 400).
      throw Object.assign(providerError(502, 'AI_PROVIDER_FAILED', `The AI provider answered ${statusCode}${said}`), {
        providerStatus: statusCode,
      });
    }
  }

  private chatBody(s: ProviderSettings, r: ChatRequest, stream: boolean): Record<string, unknown> {
    const max = r.maxOutputTokens ?? s.maxOutputTokens ?? undefined;
    const body: Record<string, unknown> = { model: s.model, messages: r.messages };
    if (s.temperature !== null) body.temperature = s.temperature;
    // OpenAI's newer models take `max_completion_tokens`; compatible servers know `max_tokens`.
    if (max !== undefined) body[s.provider === 'openai' ? 'max_completion_tokens' : 'max_tokens'] = max;
    if (stream) body.stream = true;
    if (stream) body.stream_options = { include_usage: true };
    if (r.jsonSchema)
      body.response_format = {
        type: 'json_schema',
        json_schema: { name: r.jsonSchema.name, schema: r.jsonSchema.schema, strict: r.jsonSchema.strict },
      };
    if (r.tool) {
      body.tools = [{ type: 'function', function: r.tool }];
      body.tool_choice = { type: 'function', function: { name: r.tool.name } };
    }
    return body;
  }

  /** One chat completion; with `tool`, the text is the arguments of the model's call to it. */
  async chat(s: ProviderSettings, r: ChatRequest): Promise<ChatAnswer> {
    const answer = await this.post(s, 'chat/completions', this.chatBody(s, r, false));
    const raw = await readText(answer.body, MAX_CHAT_BYTES).catch((err) => {
      throw isTimeout(err) ? timeout(s) : invalid(`the answer could not be read (${(err as Error).message})`);
    });
    const parsed = parseJson(raw) as {
      model?: unknown;
      choices?: { message?: { content?: unknown; tool_calls?: { function?: { arguments?: unknown } }[] } }[];
      usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
    };
    const message = parsed?.choices?.[0]?.message;
    const toolArgs = message?.tool_calls?.[0]?.function?.arguments;
    const text = r.tool && typeof toolArgs === 'string' ? toolArgs : message?.content;
    if (typeof text !== 'string') throw invalid('the answer has no choices[0].message.content');
    return { text, model: typeof parsed.model === 'string' ? parsed.model : s.model, usage: usageOf(parsed.usage) };
  }

  /**
   * A streamed chat completion (server-sent events): yields each text delta, then answers the whole.
   * The provider's status is known before the first delta, so a refusal is an HTTP error, not an event.
   */
  async chatStream(s: ProviderSettings, r: ChatRequest): Promise<AsyncGenerator<string, ChatAnswer>> {
    const answer = await this.post(s, 'chat/completions', this.chatBody(s, r, true), 'text/event-stream');
    return streamDeltas(answer.body, s);
  }

  /**
   * The models the provider offers (`GET /models`, OpenAI's list shape): the connection test. It
   * proves the address, the key and the model name without generating anything (an image costs).
   */
  async listModels(s: ProviderSettings): Promise<string[]> {
    const answer = await this.send(s, 'GET', 'models');
    const raw = await readText(answer.body, MAX_CHAT_BYTES).catch((err) => {
      throw isTimeout(err) ? timeout(s) : invalid(`the answer could not be read (${(err as Error).message})`);
    });
    const parsed = parseJson(raw) as { data?: { id?: unknown }[] };
    if (!Array.isArray(parsed?.data)) throw invalid('the model list has no data array');
    return parsed.data.map((m) => m?.id).filter((id): id is string => typeof id === 'string');
  }

  /** One image (`b64_json`) from `/images/generations`. */
  async image(s: ProviderSettings, prompt: string, size: string): Promise<{ bytes: Buffer; model: string }> {
    const body: Record<string, unknown> = { model: s.model, prompt, n: 1, size };
    // gpt-image models always answer base64 and refuse the parameter; DALL-E and compatible servers need it.
    if (!/^gpt-image/.test(s.model)) body.response_format = 'b64_json';
    const answer = await this.post(s, 'images/generations', body);
    const raw = await readText(answer.body, MAX_IMAGE_BYTES).catch((err) => {
      throw isTimeout(err) ? timeout(s) : invalid(`the answer could not be read (${(err as Error).message})`);
    });
    const parsed = parseJson(raw) as { data?: { b64_json?: unknown }[] };
    const b64 = parsed?.data?.[0]?.b64_json;
    if (typeof b64 !== 'string' || !/^[A-Za-z0-9+/=\s]+$/.test(b64))
      throw invalid('the answer has no data[0].b64_json');
    return { bytes: Buffer.from(b64, 'base64'), model: s.model };
  }
}

const timeout = (s: ProviderSettings) =>
  providerError(504, 'AI_PROVIDER_TIMEOUT', `The AI provider did not answer within ${s.timeoutMs / 1000} s`);
const invalid = (what: string) =>
  providerError(502, 'AI_INVALID_OUTPUT', `The AI provider's answer is unusable: ${what}`);

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw invalid('it is not JSON');
  }
}

function usageOf(u: { prompt_tokens?: unknown; completion_tokens?: unknown } | undefined) {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);
  return { inputTokens: n(u?.prompt_tokens), outputTokens: n(u?.completion_tokens) };
}

async function readText(body: AsyncIterable<Buffer>, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      (body as { destroy?: () => void }).destroy?.();
      throw new Error(`larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Parses `data:` lines of an SSE body as chat completion chunks, to the `[DONE]` line. */
async function* streamDeltas(body: AsyncIterable<Buffer>, s: ProviderSettings): AsyncGenerator<string, ChatAnswer> {
  let buffer = '';
  let text = '';
  let model = s.model;
  let usage = { inputTokens: 0, outputTokens: 0 };
  let done = false;
  try {
    for await (const chunk of body) {
      buffer += chunk.toString('utf8');
      if (buffer.length > MAX_CHAT_BYTES) throw invalid('a streamed event is too large');
      let nl = buffer.indexOf('\n');
      while (nl >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf('\n');
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        if (data === '[DONE]') {
          done = true;
          break;
        }
        const event = parseJson(data) as {
          model?: unknown;
          error?: { message?: unknown };
          choices?: { delta?: { content?: unknown } }[];
          usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null;
        };
        if (event?.error)
          throw providerError(502, 'AI_PROVIDER_FAILED', 'The AI provider ended the stream with an error');
        if (typeof event?.model === 'string') model = event.model;
        if (event?.usage) usage = usageOf(event.usage);
        const delta = event?.choices?.[0]?.delta?.content;
        if (typeof delta === 'string' && delta.length > 0) {
          text += delta;
          if (text.length > MAX_CHAT_BYTES) throw invalid('the streamed text is too large');
          yield delta;
        }
      }
      if (done) break;
    }
  } catch (err) {
    if (isTimeout(err)) throw timeout(s);
    throw isHttpError(err) ? err : invalid(`the stream broke off (${(err as Error).message})`);
  } finally {
    (body as { destroy?: () => void }).destroy?.();
  }
  if (!done) throw invalid('the stream ended before its [DONE] line');
  return { text, model, usage };
}
