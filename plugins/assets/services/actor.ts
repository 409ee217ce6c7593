import type { Actor, ChangeActor } from '../../../kernel/index.ts';

/** The record-change actor of a request's actor: people are `user`, service calls and public forms `system`. */
export function changeActorOf(actor: Actor): ChangeActor {
  if (actor.type === 'user') return { type: 'user', id: actor.id };
  if (actor.type === 'system') return { type: 'system', id: actor.id };
  return { type: 'system', id: null };
}

/** Whose turn an image operation takes in the shared slots (services/image-slots.ts): one share per user, one per system caller. */
export function imageCallerOf(actor: Actor | ChangeActor): string {
  if (actor.type === 'user') return `user:${actor.id}`;
  if (actor.type === 'system' && 'label' in actor) return `system:${actor.label}`;
  return actor.type === 'anonymous' ? 'anonymous' : 'system';
}
