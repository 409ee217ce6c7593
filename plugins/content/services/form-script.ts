/**
 * The form block's script (form-node.ts), served same-origin at `FORM_SCRIPT_PATH` and loaded
 * (deferred) by a public page that shows a form, so a page under a Content-Security-Policy without
 * inline script still works. Plain browser JavaScript kept as text: the project's types have no DOM.
 *
 * For each `form[data-cms-form]`: enables the submit button (disabled in the HTML, so without script
 * nothing is sent), and on submit posts `{ attributes, locale?, notify? }` as JSON to
 * `/public/forms/<classId>/submit` (no cookies: the route is public). Values: a checkbox is true or
 * false, a number a number, a `datetime-local` an ISO date-time (the visitor's clock), an empty
 * control is left out (the server answers "is required" for a required one). The outcome is written
 * to the form's live region (`role="status"`); a refused field (400 or 409 naming `attributes.<name>`)
 * gets the server's reason beside it (`aria-invalid`, `aria-describedby`) and the focus. Then the
 * form dispatches `cms-form-result` (bubbling) with `detail = { outcome, success, status, id?,
 * field?, message? }`: `outcome` is `success` (201, `id` of the unpublished object), `invalid` (400
 * or 409; `field` is the field's name when the server named one), `rate-limited` (429) or `error`
 * (anything else, `status` 0 when the network failed).
 */
export const FORM_SCRIPT = String.raw`(function () {
  'use strict';
  var TEXT = {
    sending: 'Sending…',
    invalid: 'Please correct the marked field.',
    rateLimited: 'Too many submissions from your address; please try again later.',
    error: 'The form could not be sent; please try again later.',
  };
  var errorIds = 0;

  function valueOf(el) {
    if (el.type === 'checkbox') return el.checked;
    if (el.value === '') return undefined;
    if (el.type === 'number') return Number(el.value);
    if (el.type === 'datetime-local') {
      var time = new Date(el.value);
      return isNaN(time.getTime()) ? el.value : time.toISOString();
    }
    return el.value;
  }

  function control(form, name) {
    for (var i = 0; i < form.elements.length; i++) if (form.elements[i].name === name) return form.elements[i];
    return null;
  }

  function clearErrors(form) {
    var shown = form.querySelectorAll('[data-cms-form-error]');
    for (var i = 0; i < shown.length; i++) {
      var el = control(form, shown[i].getAttribute('data-cms-form-error'));
      if (el) {
        el.removeAttribute('aria-invalid');
        el.removeAttribute('aria-describedby');
      }
      shown[i].remove();
    }
  }

  function showError(form, el, message) {
    var note = document.createElement('p');
    note.id = 'cms-form-error-' + ++errorIds;
    note.className = 'cms-form-error';
    note.setAttribute('data-cms-form-error', el.name);
    note.textContent = message;
    var field = el.closest('.cms-form-field') || el.parentNode;
    field.appendChild(note);
    el.setAttribute('aria-invalid', 'true');
    el.setAttribute('aria-describedby', note.id);
    el.focus();
  }

  // "attributes.email: is required" -> "Email: is required" (the label the visitor sees).
  function reasonFor(el, name, message) {
    var label = el.closest('label');
    var text = label && label.querySelector('[data-cms-form-label]');
    var prefix = 'attributes.' + name + ': ';
    if (text && message.indexOf(prefix) === 0) return text.textContent + ': ' + message.slice(prefix.length);
    return message;
  }

  function finish(form, status, detail) {
    var region = form.querySelector('[data-cms-form-status]');
    if (region) region.textContent = detail.text;
    delete detail.text;
    form.dispatchEvent(new CustomEvent('cms-form-result', { bubbles: true, detail: detail }));
  }

  function send(form, button) {
    var classId = form.getAttribute('data-cms-form');
    var attributes = {};
    for (var i = 0; i < form.elements.length; i++) {
      var el = form.elements[i];
      if (!el.name || el.disabled) continue;
      var value = valueOf(el);
      if (value !== undefined) attributes[el.name] = value;
    }
    var body = { attributes: attributes };
    var locale = form.getAttribute('data-cms-form-locale');
    if (locale) body.locale = locale;
    var notify = form.getAttribute('data-cms-form-notify');
    if (notify) body.notify = JSON.parse(notify);
    clearErrors(form);
    var region = form.querySelector('[data-cms-form-status]');
    if (region) region.textContent = TEXT.sending;
    button.disabled = true;
    form.setAttribute('aria-busy', 'true');
    var done = function () {
      button.disabled = false;
      form.removeAttribute('aria-busy');
    };
    fetch('/public/forms/' + encodeURIComponent(classId) + '/submit', {
      method: 'POST',
      credentials: 'omit',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    })
      .then(function (res) {
        return res
          .json()
          .catch(function () {
            return {};
          })
          .then(function (answer) {
            done();
            var status = res.status;
            if (status === 201) {
              form.reset();
              return finish(form, status, {
                outcome: 'success',
                success: true,
                status: status,
                id: answer.id,
                text: form.getAttribute('data-cms-form-success'),
              });
            }
            if (status === 429)
              return finish(form, status, { outcome: 'rate-limited', success: false, status: status, text: TEXT.rateLimited });
            if (status === 400 || status === 409) {
              var message = typeof answer.message === 'string' ? answer.message : TEXT.invalid;
              var named = typeof answer.field === 'string' ? /^attributes\.([^.]+)/.exec(answer.field) : null;
              var el = named && control(form, named[1]);
              var detail = { outcome: 'invalid', success: false, status: status, message: message };
              if (named) detail.field = named[1];
              if (el) {
                showError(form, el, reasonFor(el, named[1], message));
                detail.text = TEXT.invalid;
              } else detail.text = message;
              return finish(form, status, detail);
            }
            return finish(form, status, { outcome: 'error', success: false, status: status, text: TEXT.error });
          });
      })
      .catch(function () {
        done();
        finish(form, 0, { outcome: 'error', success: false, status: 0, text: TEXT.error });
      });
  }

  function setup(form) {
    if (form.hasAttribute('data-cms-form-ready')) return;
    form.setAttribute('data-cms-form-ready', '');
    var button = form.querySelector('button[type="submit"]');
    if (!button) return;
    button.disabled = false;
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      if (!form.hasAttribute('aria-busy')) send(form, button);
    });
  }

  var forms = document.querySelectorAll('form[data-cms-form]');
  for (var i = 0; i < forms.length; i++) setup(forms[i]);
})();
`;
