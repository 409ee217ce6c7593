import { api, ApiError } from '../../admin-ui/app/src/sdk/index.ts';

/**
 * `POST /ai/generate` with `stream: true`: calls `onDelta` with the text so far after each
 * server-sent `delta`, resolves with the `done` event's result, rejects with an ApiError for a
 * refusal or the stream's `error` event.
 */
export async function streamGenerate(
  body: { prompt: string; system?: string; maxOutputTokens?: number },
  onDelta: (textSoFar: string) => void,
  signal?: AbortSignal,
): Promise<{ id: string; text: string; model: string; usage: { inputTokens: number; outputTokens: number } }> {
  const { response, error } = await api.POST('/ai/generate', {
    body: { ...body, stream: true },
    parseAs: 'stream',
    signal,
  });
  if (!response.ok) throw new ApiError(response.status, error as { message?: string; code?: string });
  if (!response.body) throw new ApiError(502, { message: 'The answer has no body' });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
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
      const payload = JSON.parse(data);
      if (event === 'delta') {
        text += payload.text ?? '';
        onDelta(text);
      } else if (event === 'done') return payload;
      else if (event === 'error') throw new ApiError(payload.statusCode ?? 502, payload);
    }
  }
  throw new ApiError(502, { code: 'AI_INVALID_OUTPUT', message: 'The answer ended before it was complete' });
}
