import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ADMIN_DIST, buildAdminUi } from '../../../test/helpers/admin-build.ts';

/** A class of a Mantine stylesheet, as the build keeps it. */
const firstClass = (file: string) => /m_[0-9a-f]{8}/.exec(readFileSync(require.resolve(file), 'utf8'))![0];
const require = createRequire(import.meta.url);

describe("admin-ui: the first screen's stylesheets (issue 36 §7)", () => {
  let css: string;
  let files: string[];
  before(function () {
    this.timeout(180_000);
    buildAdminUi({ ifStale: true });
    const html = readFileSync(path.join(ADMIN_DIST, 'index.html'), 'utf8');
    files = [...html.matchAll(/<link rel="stylesheet"[^>]* href="\/assets\/([^"]+\.css)"/g)].map((m) => m[1]);
    css = files.map((f) => readFileSync(path.join(ADMIN_DIST, 'assets', f), 'utf8')).join('\n');
  });

  it("carries Mantine's base first and in its layer, not Mantine's whole stylesheet", () => {
    expect(files.length).to.be.greaterThan(0);
    const first = readFileSync(path.join(ADMIN_DIST, 'assets', files[0]), 'utf8');
    // Mantine's baseline (its first rule) before any component's rule.
    expect(first.replace(/\s/g, '')).to.match(/^@layermantine(,mantine-datatable)?[;{]/);
    expect(first.indexOf('box-sizing:border-box')).to.be.lessThan(first.indexOf('.m_'));
    expect(css.length).to.be.lessThan(150_000); // the whole of @mantine/core/styles.css is 243 KB minified
  });

  it('leaves out the CSS of components only later screens draw (tabs, date pickers)', () => {
    expect(css).to.contain(firstClass('@mantine/core/styles/AppShell.css'));
    expect(css).not.to.contain(firstClass('@mantine/core/styles/Tabs.css'));
    expect(css).not.to.contain(firstClass('@mantine/dates/styles.css'));
  });
});
