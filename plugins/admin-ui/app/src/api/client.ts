import createClient from 'openapi-fetch';
import { writeAnswered } from '../sdk/unsaved-changes';
import type { paths } from './schema';
import { sessionFetch } from './session-expiry';

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

/** The browser event the shell listens to: the API refused an action. */
export const FORBIDDEN_EVENT = 'cms:forbidden';

/**
 * The typed client of the documented API (same origin, the session cookie). An ended session does
 * not fail a call: `sessionFetch` holds it until the user has signed in again in the dialog.
 */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin', fetch: sessionFetch });

api.use({
  onResponse({ request, response }) {
    if (response.status === 403) window.dispatchEvent(new Event(FORBIDDEN_EVENT));
    // A sign-in (the session dialog's) saves no form: the save it unblocks answers for itself.
    const signIn = /^\/auth\/(login|logout|mfa\/challenge)$/.test(new URL(request.url).pathname);
    if (request.method !== 'GET' && request.method !== 'HEAD' && !signIn) writeAnswered(response.ok);
    return undefined;
  },
});

/** The data of an openapi-fetch answer, or an `ApiError` thrown for anything else. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok) return result.data as T;
  throw new ApiError(result.response.status, result.error as ErrorBody | undefined);
}
