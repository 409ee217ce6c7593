import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

const require = createRequire(import.meta.url);
// The package exports its stylesheets, not its package.json: find the folder from one of them.
const CORE_STYLES = path.dirname(require.resolve('@mantine/core/styles/global.css'));

/** A Mantine component's class-name module (`@mantine/core/esm/components/Button/Button.module.mjs`). */
const CORE_CLASSES = /[\\/]@mantine[\\/]core[\\/]esm[\\/].*[\\/]([A-Za-z]+)\.module\.mjs$/;
/** Any class-name module of @mantine/dates: the package ships one stylesheet for all its components. */
const DATES_CLASSES = /[\\/]@mantine[\\/]dates[\\/]esm[\\/].*\.module\.mjs$/;
/** Mantine's Box, which every component is drawn with: the base stylesheets go with it. */
const CORE_BOX = /[\\/]@mantine[\\/]core[\\/]esm[\\/]core[\\/]Box[\\/]Box\.mjs$/;
/** The stylesheets that come before any component's (src/styles/base.ts). */
const BASE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'src/styles/base.ts');
/** mantine-datatable's module: its stylesheet goes with it. */
const DATATABLE = /[\\/]mantine-datatable[\\/]dist[\\/]index\.mjs$/;

/**
 * Each Mantine component brings its own stylesheet: the build appends the import of
 * `@mantine/core/styles/<Component>.layer.css` to the component's class-name module (and of the
 * dates and data-table stylesheets to theirs). So a chunk carries the CSS of exactly the components
 * it draws, the first screen loads no CSS of the screens it does not show, and a component used for
 * the first time needs no import of its own. Mantine's own order holds: a component's module imports
 * the components it is built on before its class names, so their CSS comes first.
 *
 * The `.layer.css` forms put Mantine's rules in the CSS layers `mantine` (then `mantine-datatable`,
 * declared in that order by src/styles/layers.css): the app's own stylesheets, outside any layer,
 * win over them whatever order the chunks load in.
 */
export function mantineComponentStyles(): Plugin {
  return {
    name: 'cms-mantine-component-styles',
    enforce: 'pre',
    transform(code, id) {
      const file = id.split('?')[0];
      const core = CORE_CLASSES.exec(file);
      if (core) {
        const css = path.join(CORE_STYLES, `${core[1]}.layer.css`);
        if (!existsSync(css)) this.error(`no stylesheet ${css} for the Mantine component ${core[1]}`);
        return { code: `${code}\nimport '@mantine/core/styles/${core[1]}.layer.css';\n`, map: null };
      }
      // So they come first in every page's stylesheets, before the chunks of the components, as
      // Mantine requires (the entry's own stylesheet is linked after those of the chunks it imports).
      if (CORE_BOX.test(file)) return { code: `${code}\nimport ${JSON.stringify(BASE)};\n`, map: null };
      if (DATES_CLASSES.test(file)) return { code: `${code}\nimport '@mantine/dates/styles.layer.css';\n`, map: null };
      if (DATATABLE.test(file)) return { code: `${code}\nimport 'mantine-datatable/styles.layer.css';\n`, map: null };
      return null;
    },
  };
}
