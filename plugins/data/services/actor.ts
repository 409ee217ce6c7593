import type { FastifyRequest } from 'fastify';
import type { Actor, ChangeActor, Tx } from '../../../kernel/index.ts';

/** The record-change actor of a request's actor: people are `user`, the kernel's system actor `system`. */
export function changeActorOf(actor: Actor): ChangeActor {
  if (actor.type === 'user') return { type: 'user', id: actor.id };
  if (actor.type === 'system') return { type: 'system', id: actor.id };
  // Anonymous writers (public forms) count as `system` in the spec's actor list.
  return { type: 'system', id: null };
}

/** The actor of changes the platform makes by itself, e.g. the shared-field sync of a translation group. */
export const SYSTEM_CHANGE_ACTOR: ChangeActor = { type: 'system', id: null };

/** Request-scoped event flags: `X-Cms-Flow: stop` ends the flow (no subscription starts). */
export function changeFlagsOf(request: FastifyRequest): Record<string, string> | undefined {
  const flow = request.headers['x-cms-flow'];
  const value = Array.isArray(flow) ? flow[0] : flow;
  return value?.trim().toLowerCase() === 'stop' ? { flow: 'stop' } : undefined;
}

/** What a service needs to know about who writes: the actor for checks, the event actor and flags. */
export interface WriteContext {
  actor: Actor;
  changeActor: ChangeActor;
  flags?: Record<string, string>;
  /** A caller's transaction to join (e.g. a website import writing pages, objects and assets at once). */
  trx?: Tx;
  /**
   * The only asset references this write may add (a public form: the ids of the uploads attached for
   * it). Absent: any existing file the actor can read.
   */
  allowedAssets?: ReadonlySet<string>;
  /** Where the request came from, for the audit rows of a write (publishing a working copy). */
  ip?: string | null;
  requestId?: string | null;
}

export function writeContextOf(request: FastifyRequest): WriteContext {
  return {
    actor: request.actor,
    changeActor: changeActorOf(request.actor),
    flags: changeFlagsOf(request),
    ip: request.ip,
    requestId: request.id,
  };
}
