import { ApiError } from '../../../admin-ui/app/src/sdk/index.ts';
import { call, json } from './documents.ts';

/**
 * AI assistance through the documented API of an AI plugin: `POST /ai/generate` with `stream: true`
 * (server-sent `delta` events, then `done` or `error`) and `POST /cms-one/pages/:id/translate`.
 * Nothing is applied here: the caller shows the text and the person accepts or discards it.
 */
export type AiAction = 'rewrite' | 'shorten' | 'translate' | 'prompt';

const SYSTEM =
  'You edit the text of one block of a web page. Answer with the new text only: no quotes, no ' +
  'explanations, no markup, in the language of the text unless asked to translate.';

/** The prompt sent for an action on a block's text. */
export function aiPrompt(action: AiAction, text: string, extra: string): string {
  switch (action) {
    case 'rewrite':
      return `Rewrite this text, keeping its meaning and its language:\n\n${text}`;
    case 'shorten':
      return `Shorten this text to about half its length, keeping what matters:\n\n${text}`;
    case 'translate':
      return `Translate this text into ${extra}:\n\n${text}`;
    case 'prompt':
      return text.trim() ? `${extra}\n\nThe block's text now:\n\n${text}` : extra;
  }
}

/**
 * Streams a generation: calls `onDelta` with the text so far after each delta and resolves with
 * the whole text; rejects with an ApiError (the route's refusal, or the stream's `error` event).
 */
export async function streamGeneration(
  prompt: string,
  onDelta: (textSoFar: string) => void,
  signal?: AbortSignal,
): Promise<string> {
  const response = await call(
    'POST',
    '/ai/generate',
    { prompt, system: SYSTEM, stream: true },
    { accept: 'text/event-stream' },
  );
  if (!response.body) throw new ApiError(502, { message: 'The answer has no body' });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  signal?.addEventListener('abort', () => void reader.cancel());
  let buffer = '';
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (!event || data === undefined) continue;
      const payload = JSON.parse(data) as { text?: string; message?: string; code?: string; statusCode?: number };
      if (event === 'delta') {
        text += payload.text ?? '';
        onDelta(text);
      } else if (event === 'done') return payload.text ?? text;
      else if (event === 'error') throw new ApiError(payload.statusCode ?? 502, payload);
    }
  }
  if (signal?.aborted) return text;
  throw new ApiError(502, { code: 'AI_INVALID_OUTPUT', message: 'The answer ended before it was complete' });
}

/** A draft of the page in `locale` made by AI (`POST /cms-one/pages/:id/translate`): its id. */
export async function translatePage(pageId: string, locale: string): Promise<string> {
  const { data } = await json<{ id: string }>('POST', `/cms-one/pages/${encodeURIComponent(pageId)}/translate`, {
    locale,
  });
  return data.id;
}

/** A person-readable reason for a refused AI call. */
export function aiProblem(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.status === 403 && err.code !== 'OUTBOUND_REFUSED') return 'You are not allowed to use AI assistance.';
    if (err.code === 'AI_NOT_CONFIGURED') return 'No AI provider is configured yet (dashboard: AI settings).';
    if (err.status === 404) return 'AI assistance is not installed on this server.';
    return err.message;
  }
  return (err as Error).message;
}
