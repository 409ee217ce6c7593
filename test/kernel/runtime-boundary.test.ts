import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../../kernel/loader.ts';

const KERNEL = path.join(PROJECT_ROOT, 'kernel');
const RUNTIME = path.join(PROJECT_ROOT, 'runtime');
const inside = (file: string, dir: string) => file === dir || file.startsWith(dir + path.sep);

/** Imports (static, dynamic, type-only) of one kernel file that reach into runtime/. */
function runtimeImports(file: string, text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.filter((ref) => ref.fileName.startsWith('.'))
    .filter((ref) => inside(path.resolve(path.dirname(file), ref.fileName), RUNTIME))
    .map((ref) => `${path.relative(PROJECT_ROOT, file)} imports ${ref.fileName}: the kernel never imports the runtime`);
}

describe('runtime boundary: runtime/ depends on the kernel, never the reverse', () => {
  it('no file under kernel/ imports runtime/ (and the rule can fail)', () => {
    const files = readdirSync(KERNEL, { recursive: true, encoding: 'utf8' })
      .filter((name) => /\.(ts|js|mjs)$/.test(name))
      .map((name) => path.join(KERNEL, name));
    expect(files.length).to.be.greaterThan(20);
    const violations = files.flatMap((f) => runtimeImports(f, readFileSync(f, 'utf8')));
    expect(violations, violations.join('\n')).to.deep.equal([]);
    const probe = path.join(KERNEL, 'x.ts');
    expect(runtimeImports(probe, "import { openDatabase } from '../runtime/database.ts';")).to.have.length(1);
    expect(runtimeImports(probe, "const m = await import('../runtime/cli.ts');")).to.have.length(1);
    expect(runtimeImports(probe, "import { createKnex } from './database.ts';")).to.deep.equal([]);
  });
});
