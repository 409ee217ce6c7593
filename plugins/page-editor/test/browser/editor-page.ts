import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import { type BrowserProduct, signInAs, WIDTHS } from '../../../../test/helpers/browser.ts';
import { png } from '../../../../test/helpers/images.ts';
import type { TestUser } from '../../../../test/helpers/kernel.ts';

/** The canvas shows the user's own content: axe checks the editor's chrome around it. */
export const CHROME_ONLY = { exclude: ['.cms-canvas-frame', '.cms-version-frame'] };

/**
 * Drags `source` onto `target` with the mouse, in small steps as a person does (dnd-kit needs moves).
 * The pick-up is confirmed first (dnd-kit marks the dragged handle `aria-pressed`): on a loaded
 * machine a press can land while the palette is still laid out, and a press that picked nothing up
 * is released and tried again rather than dragged across the canvas frame.
 */
export async function dragTo(page: Page, source: Locator, target: Locator, where: 'center' | 'top' = 'center') {
  for (let attempt = 1; ; attempt++) {
    const from = (await source.boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2 + 6, from.y + from.height / 2 + 6, { steps: 4 });
    const picked = await source
      .and(page.locator('[aria-pressed="true"]'))
      .waitFor({ timeout: 3_000 })
      .then(() => true)
      .catch(() => false);
    if (picked) break;
    await page.mouse.up();
    await page.keyboard.press('Escape');
    if (attempt === 3) throw new Error('dragTo: the block was not picked up after 3 presses');
  }
  const to = (await target.boundingBox())!;
  const y = where === 'top' ? to.y + 3 : to.y + to.height / 2;
  await page.mouse.move(to.x + to.width / 2, y, { steps: 12 });
  await page.mouse.move(to.x + to.width / 2, y + 1, { steps: 2 });
  await page.mouse.up();
}

/**
 * A keyboard pick-up (Space on a handle) finished: the handle is pressed and two frames have passed.
 * dnd-kit measures the rows in the frames after the pick-up; an arrow key before that finds no row
 * beside the picked one (seen as "Home is over Home." on a loaded machine).
 */
export async function pickedUpByKeyboard(page: Page) {
  await page.locator('.cms-drag-handle[aria-pressed="true"]').waitFor();
  await page.evaluate(
    () =>
      new Promise((done) => {
        const frame = (globalThis as unknown as { requestAnimationFrame(f: () => void): void }).requestAnimationFrame;
        frame(() => frame(() => done(undefined)));
      }),
  );
}

/** The canvas frame's document. */
export const canvas = (page: Page) => page.frameLocator('iframe.cms-canvas-frame');

/** The save state shown in the editor's bar. */
export const status = (page: Page) =>
  page.getByRole('status').filter({ hasText: /Saved|Unsaved|Saving|failed|Locked|Changed/ });

/**
 * A fresh context signed in as `user`, at `path` of the editor, once its canvas is drawn. With
 * `manualClock` the page runs on Playwright's clock (time flows, and `page.clock.fastForward(ms)`
 * fires the timers due by then): a test moves it past the autosave interval instead of waiting it out.
 */
export async function openEditor(
  p: BrowserProduct,
  user: TestUser,
  path: string,
  width: 'desktop' | 'phone' = 'desktop',
  opts: { manualClock?: boolean } = {},
) {
  const { page, context, errors } = await p.page(width);
  if (opts.manualClock) await context.clock.install();
  await signInAs(p, context, user);
  await page.goto(path);
  await page.getByRole('heading', { level: 1, name: /^Editing/ }).waitFor();
  await page.locator('iframe.cms-canvas-frame[data-ready]').waitFor();
  return { page, context, errors };
}

/** Uploads a PNG (by default a half-transparent 40 × 30 one) to the asset library as `user`. */
export async function uploadImage(
  p: BrowserProduct,
  user: TestUser,
  folder: string,
  name: string,
  bytes?: Buffer,
): Promise<void> {
  const boundary = 'x-editor-test';
  const res = await p.t.inject({
    method: 'POST',
    url: '/api/v1/dam/upload',
    headers: { cookie: user.cookie, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="folder"\r\n\r\n${folder}\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      bytes ?? (await png(40, 30)),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]),
  });
  if (res.statusCode !== 200 && res.statusCode !== 201) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
}

/** What a person acts on: a control that reaches past the screen's edge cannot be used. */
const CONTROLS = 'button, input, textarea, select, a[href], [role="slider"], [role="combobox"], [role="radio"]';

/**
 * Fails when `region` does not fit the phone's width: the document scrolls sideways, `region` or a
 * box around it holds more than its width (content spilling over the side), a box inside it
 * scrolls sideways (text fields aside), or `region` or one of its visible controls reaches past
 * the viewport's left or right edge.
 */
export async function expectFits(region: Locator, where: string) {
  await region.first().waitFor();
  const problems = await region.first().evaluate((el, controls) => {
    // Runs in the page (the root tsconfig has no DOM types).
    interface Node {
      tagName: string;
      className: unknown;
      scrollWidth: number;
      clientWidth: number;
      parentElement: Node | null;
      textContent: string | null;
      getAttribute(name: string): string | null;
      getBoundingClientRect(): { left: number; right: number; width: number; height: number };
      querySelectorAll(selector: string): ArrayLike<Node>;
    }
    const g = globalThis as unknown as {
      innerWidth: number;
      document: { documentElement: Node };
      getComputedStyle(el: Node): { visibility: string; overflowX: string };
    };
    // No named functions in here: the test's compiler would wrap them in a helper the page lacks.
    const found: Array<[Node, string]> = [];
    const width = g.innerWidth;
    const root = g.document.documentElement;
    const start = el as unknown as Node;
    if (root.scrollWidth > width) found.push([root, `is ${root.scrollWidth} px wide`]);
    for (let n: Node | null = start; n && n !== root; n = n.parentElement)
      if (n.scrollWidth > n.clientWidth + 1 && g.getComputedStyle(n).overflowX !== 'hidden')
        found.push([n, `holds ${n.scrollWidth} px in ${n.clientWidth} px`]);
    for (const n of Array.from(start.querySelectorAll('*')))
      if (
        n.tagName !== 'INPUT' &&
        n.tagName !== 'TEXTAREA' &&
        n.scrollWidth > n.clientWidth + 1 &&
        ['auto', 'scroll'].includes(g.getComputedStyle(n).overflowX)
      )
        found.push([n, `scrolls sideways (${n.scrollWidth} px in ${n.clientWidth} px)`]);
    for (const n of [start, ...Array.from(start.querySelectorAll(controls))]) {
      const box = n.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || g.getComputedStyle(n).visibility === 'hidden') continue;
      if (box.left < -0.5 || box.right > width + 0.5)
        found.push([n, `spans ${Math.round(box.left)} to ${Math.round(box.right)} px`]);
    }
    const out = found.map(
      ([n, issue]) =>
        `${n.tagName.toLowerCase()}${typeof n.className === 'string' && n.className ? `.${n.className.split(' ')[0]}` : ''} "${(n.getAttribute('aria-label') ?? n.textContent ?? '').trim().slice(0, 40)}" ${issue}`,
    );
    return { width, out };
  }, CONTROLS);
  expect(problems.width, "the viewport of p.page('phone')").to.equal(WIDTHS.phone.width);
  expect(problems.out, `${where} at ${problems.width} px`).to.deep.equal([]);
}
