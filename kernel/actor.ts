/**
 * Who is acting. Every service call that checks access or writes audit rows takes one explicitly;
 * there is no implicit "no actor means administrator".
 */
export type Actor = UserActor | SystemActor | AnonymousActor;

export interface UserActor {
  type: 'user';
  id: string;
  email: string;
  displayName: string;
  roles: string[];
  /** Effective keys; contains '*' for a role granted every permission (admin). */
  permissions: ReadonlySet<string>;
  sessionId?: string;
}

export interface SystemActor {
  type: 'system';
  id: string | null;
  label: string;
}

export interface AnonymousActor {
  type: 'anonymous';
}

export const SYSTEM: SystemActor = { type: 'system', id: null, label: 'system' };
export const ANONYMOUS: AnonymousActor = { type: 'anonymous' };
