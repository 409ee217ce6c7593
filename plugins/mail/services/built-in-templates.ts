/**
 * The templates the product itself sends through, seeded when missing. An administrator may edit or
 * delete them; a deleted one falls back to the text the sender gives (the kernel's reset mail, ...).
 * HTML parts are content node trees, rendered by the snippet and page e-mail renderer.
 */
const p = (text: string) => ({ type: 'p', children: [{ type: 'text', text }] });
const link = (href: string, text: string) => ({
  type: 'p',
  children: [{ type: 'a', props: { href }, children: [{ type: 'text', text }] }],
});

export const BUILT_IN_TEMPLATES = [
  {
    key: 'password-reset',
    name: 'Password reset (asked for by the user)',
    subject: 'Reset your password',
    text:
      'Someone asked to reset the password of your account at {{siteUrl}}.\n\n' +
      'Open this link within {{validFor}} to choose a new password:\n{{link}}\n\n' +
      'If that was not you, ignore this message: your password stays as it is.\n',
    html: {
      type: 'div',
      children: [
        p('Someone asked to reset the password of your account at {{siteUrl}}.'),
        link('{{link}}', 'Choose a new password'),
        p('The link works for {{validFor}}. If that was not you, ignore this message: your password stays as it is.'),
      ],
    },
  },
  {
    key: 'password-reset-forced',
    name: 'Password reset (by an administrator)',
    subject: 'Reset your password',
    text:
      'An administrator reset the password of your account at {{siteUrl}}; the old password no longer works.\n\n' +
      'Open this link within {{validFor}} to choose a new password:\n{{link}}\n',
    html: {
      type: 'div',
      children: [
        p('An administrator reset the password of your account at {{siteUrl}}; the old password no longer works.'),
        link('{{link}}', 'Choose a new password'),
        p('The link works for {{validFor}}.'),
      ],
    },
  },
  {
    key: 'form-notification',
    name: 'Form notification',
    subject: '{{subject}}',
    text: 'A form was submitted.\n\n{{fields}}\n\nRecord: {{objectId}}\n',
    html: {
      type: 'div',
      children: [
        p('A form was submitted.'),
        { type: 'pre', children: [{ type: 'text', text: '{{fields}}' }] },
        p('Record: {{objectId}}'),
      ],
    },
  },
  {
    key: 'test',
    name: 'Test mail',
    subject: 'Test mail from {{siteUrl}}',
    text: 'This is a test mail sent from {{siteUrl}} with the {{settings}} mail settings ({{provider}}).\n',
    html: {
      type: 'div',
      children: [p('This is a test mail sent from {{siteUrl}} with the {{settings}} mail settings ({{provider}}).')],
    },
  },
];
