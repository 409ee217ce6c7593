import createClient from 'openapi-fetch';
import type { paths } from './schema';

/** The documented error body of every route (the API's `ErrorBody`). */
interface ErrorBody {
  statusCode?: number;
  code?: string;
  message?: string;
  field?: string;
}

/** An API answer that is not a success: its status, stable code, message and the field it names. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field?: string;

  constructor(status: number, body: ErrorBody | undefined) {
    super(body?.message ?? `The server answered ${status}`);
    this.status = status;
    this.code = body?.code ?? 'HTTP_' + status;
    this.field = body?.field;
  }
}

/** Browser events the shell listens to: the session ended, or the API refused an action. */
export const SESSION_ENDED_EVENT = 'cms:session-ended';
export const FORBIDDEN_EVENT = 'cms:forbidden';

/** Paths whose 401 is part of their own flow (a wrong password), not an ended session. */
const SIGN_IN_PATHS = /^\/auth\/(login|mfa\/|forgot-password|reset-password)/;

/** The typed client of the documented API (same origin, the session cookie). */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });

api.use({
  onResponse({ request, response }) {
    const path = new URL(request.url).pathname;
    if (response.status === 401 && !SIGN_IN_PATHS.test(path) && path !== '/auth/me')
      window.dispatchEvent(new Event(SESSION_ENDED_EVENT));
    if (response.status === 403) window.dispatchEvent(new Event(FORBIDDEN_EVENT));
    return undefined;
  },
});

/** The data of an openapi-fetch answer, or an `ApiError` thrown for anything else. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok) return result.data as T;
  throw new ApiError(result.response.status, result.error as ErrorBody | undefined);
}
