import type { Actor, ChangeActor } from '../../../kernel/index.ts';

/** The record-change actor of a request's actor: people are `user`, service calls and public forms `system`. */
export function changeActorOf(actor: Actor): ChangeActor {
  if (actor.type === 'user') return { type: 'user', id: actor.id };
  if (actor.type === 'system') return { type: 'system', id: actor.id };
  return { type: 'system', id: null };
}
