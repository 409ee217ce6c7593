import { Type, type Static } from '@sinclair/typebox';
import { badRequest } from '../../../kernel/index.ts';
import { DATA_KEYS } from '../permissions.ts';
import { assertWellFormed } from './well-formed.ts';

/**
 * A class's publishing workflow: named places and the transitions between them. Stored as jsonb in
 * `data_classes.workflow`. An object's `workflow_state` names its place; a null state counts as the
 * workflow's initial place (objects created before the workflow existed, or by a writer that leaves
 * the state unset), so every object of a class with a workflow has a place.
 */
const Name = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]*$' });
const Label = Type.String({ maxLength: 200 });

export const WorkflowPlaceSchema = Type.Object(
  { name: Name, label: Type.Optional(Label) },
  { additionalProperties: false },
);

export const WorkflowTransitionSchema = Type.Object(
  {
    name: Name,
    label: Type.Optional(Label),
    from: Type.Array(Name, { minItems: 1, maxItems: 100 }),
    to: Name,
    permissions: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 20 }),
  },
  { additionalProperties: false },
);

/** The body of `PUT /data-classes/:id/workflow`. */
export const WorkflowInputSchema = Type.Object(
  {
    initialPlace: Type.Optional(Name),
    places: Type.Array(WorkflowPlaceSchema, { minItems: 1, maxItems: 100 }),
    transitions: Type.Array(WorkflowTransitionSchema, { maxItems: 200 }),
  },
  { additionalProperties: false },
);
export type WorkflowInput = Static<typeof WorkflowInputSchema>;

/** A transition as stored and returned: every optional part filled in. */
export const StoredTransitionSchema = Type.Object({
  name: Type.String(),
  label: Type.String(),
  from: Type.Array(Type.String()),
  to: Type.String(),
  permissions: Type.Array(Type.String()),
});

/** The stored and returned form: every optional part filled in. */
export const WorkflowSchema = Type.Object({
  initialPlace: Type.String(),
  places: Type.Array(Type.Object({ name: Type.String(), label: Type.String() })),
  transitions: Type.Array(StoredTransitionSchema),
});
export type Workflow = Static<typeof WorkflowSchema>;
export type WorkflowTransition = Workflow['transitions'][number];

/**
 * Checks what the schema cannot: well-formed text, unique place and transition names, transitions and
 * the initial place naming existing places, permission keys the registry knows. Throws a 400 naming
 * the field.
 */
export function normalizeWorkflow(input: WorkflowInput, knownPermission: (key: string) => boolean): Workflow {
  assertWellFormed(input);
  const places = new Set<string>();
  input.places.forEach((place, i) => {
    if (places.has(place.name))
      throw badRequest(`place "${place.name}" is declared twice`, `places.${i}.name`, 'DUPLICATE_PLACE');
    places.add(place.name);
  });
  if (input.initialPlace !== undefined && !places.has(input.initialPlace)) {
    throw badRequest(`initialPlace "${input.initialPlace}" is not a declared place`, 'initialPlace', 'UNKNOWN_PLACE');
  }
  const names = new Set<string>();
  input.transitions.forEach((transition, i) => {
    if (names.has(transition.name)) {
      throw badRequest(
        `transition "${transition.name}" is declared twice`,
        `transitions.${i}.name`,
        'DUPLICATE_TRANSITION',
      );
    }
    names.add(transition.name);
    transition.from.forEach((from, j) => {
      if (!places.has(from))
        throw badRequest(`place "${from}" is not declared`, `transitions.${i}.from.${j}`, 'UNKNOWN_PLACE');
    });
    if (!places.has(transition.to)) {
      throw badRequest(`place "${transition.to}" is not declared`, `transitions.${i}.to`, 'UNKNOWN_PLACE');
    }
    transition.permissions.forEach((key, j) => {
      if (!knownPermission(key)) {
        throw badRequest(`unknown permission key "${key}"`, `transitions.${i}.permissions.${j}`, 'UNKNOWN_PERMISSION');
      }
    });
  });
  return {
    initialPlace: input.initialPlace ?? input.places[0].name,
    places: input.places.map((p) => ({ name: p.name, label: p.label ?? p.name })),
    transitions: input.transitions.map((t) => ({
      name: t.name,
      label: t.label ?? t.name,
      from: [...new Set(t.from)],
      to: t.to,
      permissions: [...new Set(t.permissions)],
    })),
  };
}

/** The place an object is in: its stored state, or the initial place while it has none. */
export function currentPlace(workflow: Workflow, state: string | null): string {
  return state ?? workflow.initialPlace;
}

/**
 * The keys a caller must hold to run a transition. A transition that declares none still needs
 * `data_objects:write` (granted by objects:write), so a workflow can never open a state change to
 * read-only users by omission.
 */
export function requiredKeys(transition: WorkflowTransition): string[] {
  return transition.permissions.length > 0 ? transition.permissions : [DATA_KEYS.objectsWrite];
}
