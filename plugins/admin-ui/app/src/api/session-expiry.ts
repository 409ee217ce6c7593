/**
 * What happens when the session ends under a user's hands (expired, revoked, the row deleted): every
 * request the API refuses with 401 `UNAUTHENTICATED` waits while the sign-in dialog
 * (`sdk/session-dialog.tsx`) is open, and is sent again once the same user has signed in, so a save
 * that was under way goes through and nothing typed is lost. Plain module state: the dashboard and
 * the page editor each run one page with one session.
 */

/** The error code of the session layer's 401 (kernel `unauthorized()`); other 401s are a route's own answer. */
const SESSION_CODE = 'UNAUTHENTICATED';

/** Paths whose 401 is part of their own flow (a wrong password, a wrong code), not an ended session. */
const SIGN_IN_PATHS = /^\/auth\/(login|logout|mfa\/|forgot-password|reset-password)/;

export interface SessionUser {
  id: string;
  email: string;
}

export type SessionState =
  | { status: 'active' }
  /** The session of `user` ended: the dialog asks them to sign in again. */
  | { status: 'expired'; user: SessionUser }
  /** Someone else signed in in the dialog: the page must be reloaded (see `finishSignIn`). */
  | { status: 'other-user'; user: SessionUser; signedIn: SessionUser };

let signedIn: SessionUser | null = null;
let state: SessionState = { status: 'active' };
let waiting: Array<() => void> = [];
const listeners = new Set<() => void>();

function setState(next: SessionState) {
  state = next;
  for (const listener of listeners) listener();
}

/** For `useSyncExternalStore`. */
export function subscribeSession(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const sessionState = (): SessionState => state;

/**
 * Who this page works as: set when `/auth/me` or a sign-in answers, null when signed out. Only a
 * page that had a session treats a 401 as an ended one (a first visit goes to the sign-in page).
 */
export function signedInAs(user: SessionUser | null): void {
  signedIn = user ? { id: user.id, email: user.email } : null;
}

/**
 * The dialog's sign-in finished as `user`. The same person: the waiting requests go again with the
 * new session. Someone else: nothing is sent in their name (the edits are the other person's work,
 * made under the other person's permissions); the requests stay waiting and the dialog offers a
 * reload, which discards them.
 */
export function finishSignIn(user: SessionUser): void {
  if (state.status !== 'expired') return;
  if (user.id !== state.user.id) {
    setState({ status: 'other-user', user: state.user, signedIn: { id: user.id, email: user.email } });
    return;
  }
  signedInAs(user);
  const resume = waiting;
  waiting = [];
  setState({ status: 'active' });
  for (const go of resume) go();
}

/** After someone else signed in: back to the sign-in of the user whose work is on the screen. */
export function signInAsFirstUser(): void {
  if (state.status === 'other-user') setState({ status: 'expired', user: state.user });
}

/** Opens the dialog (once for any number of refused requests) and resolves when the same user is back. */
function untilSignedInAgain(): Promise<void> {
  if (state.status === 'active' && signedIn) setState({ status: 'expired', user: signedIn });
  return new Promise((resolve) => waiting.push(resolve));
}

async function endedSession(request: Request, response: Response): Promise<boolean> {
  if (response.status !== 401 || !signedIn) return false;
  if (SIGN_IN_PATHS.test(new URL(request.url).pathname)) return false;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { code?: string } | null;
  return body?.code === SESSION_CODE;
}

/**
 * `fetch` with the session cookie that outlives the session: a request refused because the session
 * ended waits for the sign-in dialog and is sent again (a copy taken before the first try, since a
 * body can be read only once). Both browser apps send every API call through it.
 */
export async function sessionFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, { credentials: 'same-origin', ...init });
  const again = request.clone();
  const response = await fetch(request);
  if (!(await endedSession(request, response))) return response;
  await untilSignedInAgain();
  return sessionFetch(again);
}
