/**
 * A rendered e-mail document, shown as the receiver's client would, in a frame of its own origin
 * (`sandbox` without `allow-same-origin`: no cookies, no access to this page, no forms, no
 * navigation of this page). `allow-scripts` is on because automated checks evaluate scripts in
 * every frame (axe-core through Playwright waits forever on a frame without scripts); the mail's own
 * inline scripts still never run, since the frame inherits the dashboard's policy (`script-src 'self'`).
 */
export function HtmlPreview({ html, title }: { html: string; title: string }) {
  return (
    <iframe
      title={title}
      sandbox="allow-scripts"
      srcDoc={html}
      style={{
        width: '100%',
        height: 420,
        border: '1px solid var(--mantine-color-default-border)',
        background: 'white',
      }}
    />
  );
}
