/**
 * The unsaved-changes guard of every dashboard form, kept once here rather than in each screen: a
 * `<form>` a person typed into (or ticked, or picked an option in) is edited until a save of it
 * succeeds, that is until the API accepts a write sent after the form was submitted. The shell asks
 * before an in-app navigation leaves an edited form (`LeaveGuard`) and the browser warns on reload
 * or close (`beforeunload`). A form that is no longer on the page (a closed dialog) no longer counts.
 * A search or filter form (inside `<search>` or `role="search"`) and a form marked
 * `data-unsaved-guard="off"` are left out.
 */

const edited = new Set<HTMLFormElement>();
const submitted = new Set<HTMLFormElement>();
/** Set once the user chose to drop their changes (a reload they asked for): nothing more to warn about. */
let discarding = false;

function guardedForm(target: EventTarget | null): HTMLFormElement | null {
  if (!(target instanceof Element)) return null;
  const form = target.closest('form');
  if (!form || form.closest('search, [role="search"], [data-unsaved-guard="off"]')) return null;
  return form;
}

function markEdited(target: EventTarget | null) {
  const form = guardedForm(target);
  if (!form) return;
  edited.add(form);
  // Typing after a submit that never reached the API (a field the form itself refused) starts over.
  submitted.delete(form);
}

/**
 * An option of a select or combobox lives in a dropdown outside the form (a portal): the form is
 * the one whose input controls that option's list.
 */
function markPickedOption(target: EventTarget | null) {
  if (!(target instanceof Element)) return;
  const list = target.closest('[role="option"]')?.closest('[role="listbox"][id]');
  if (!list) return;
  const owner = document.querySelector(`[aria-controls="${CSS.escape(list.id)}"]`);
  if (owner) markEdited(owner);
}

let installed = false;

/** Starts watching the page's forms (once; the dashboard's shell calls it). */
export function watchForms(): void {
  if (installed) return;
  installed = true;
  document.addEventListener('input', (e) => markEdited(e.target), true);
  document.addEventListener('change', (e) => markEdited(e.target), true);
  document.addEventListener('click', (e) => markPickedOption(e.target), true);
  // An option picked with the keyboard: Enter in an open combobox.
  document.addEventListener(
    'keydown',
    (e) => {
      if (e.key === 'Enter' && e.target instanceof Element && e.target.matches('[aria-expanded="true"]'))
        markEdited(e.target);
    },
    true,
  );
  document.addEventListener(
    'submit',
    (e) => {
      const form = guardedForm(e.target);
      if (form && edited.has(form)) submitted.add(form);
    },
    true,
  );
  document.addEventListener('reset', (e) => {
    const form = guardedForm(e.target);
    if (form) edited.delete(form);
  });
}

/** The API answered a write (POST, PUT, PATCH, DELETE): accepted, the forms submitted before it are saved. */
export function writeAnswered(accepted: boolean): void {
  if (accepted) for (const form of submitted) edited.delete(form);
  submitted.clear();
}

/** Whether a form on the page holds changes that are not saved. */
export function hasUnsavedChanges(): boolean {
  if (discarding) return false;
  for (const form of edited) if (!form.isConnected) edited.delete(form);
  return edited.size > 0;
}

/** The user chose to leave without saving: forget every edit (and, for a reload, warn no more). */
export function discardUnsavedChanges(opts: { reloading?: boolean } = {}): void {
  edited.clear();
  submitted.clear();
  if (opts.reloading) discarding = true;
}

/** True once the user asked for a reload that drops their changes (the editor's own warning reads it). */
export const discardingChanges = (): boolean => discarding;
