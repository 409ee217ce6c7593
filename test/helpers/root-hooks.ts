/**
 * Clean-up a helper module registers for the run's root hooks (test/setup.ts): after each test, and
 * after the root suite, which is the end of the run when serial and the end of each file under
 * `--parallel` (each worker runs a file in a Mocha of its own, while a module such as browser.ts is
 * evaluated once per worker, so a module-level `after` would attach to that worker's first file only).
 */
type CleanUp = () => Promise<void>;

/**
 * True in a `--parallel` worker: a process other than the one that ran the global setup (which
 * notes its id in the environment the workers inherit).
 */
export function inParallelWorker(): boolean {
  const main = process.env.CMS_TEST_MAIN_PID;
  return main !== undefined && Number(main) !== process.pid;
}

/** Called by the global setup, in mocha's main process, before any worker starts. */
export function markMainProcess(): void {
  process.env.CMS_TEST_MAIN_PID = String(process.pid);
}

const afterEachTest: CleanUp[] = [];
const afterRootSuite: CleanUp[] = [];

/** Runs `fn` after every test of the run (of the worker under `--parallel`). */
export function afterEveryTest(fn: CleanUp): void {
  afterEachTest.push(fn);
}

/** Runs `fn` after the root suite: the run's end, or each file's under `--parallel`. */
export function afterRoot(fn: CleanUp): void {
  afterRootSuite.push(fn);
}

export async function runAfterEachTest(): Promise<void> {
  for (const fn of afterEachTest) await fn();
}

export async function runAfterRoot(): Promise<void> {
  for (const fn of afterRootSuite) await fn();
}
