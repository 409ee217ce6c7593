import nock from 'nock';
import { setScryptCostForTests } from '../kernel/passwords.ts';
import { sourceBundle } from '../runtime/bundle.ts';
import { releaseTestDatabases, teardownTestDatabases, testServerUrl } from './helpers/database.ts';
import { markMainProcess, runAfterEachTest, runAfterRoot } from './helpers/root-hooks.ts';

// Cheap password hashing for the suite only: it creates hundreds of users, and scrypt at production
// cost (test/unit/passwords.test.ts proves it is the default) would dominate the run time.
setScryptCostForTests({ N: 1024, r: 8, p: 1 });

// Outbound HTTP is refused unless a test sets it up (nock) or talks to a local server it started.
nock.disableNetConnect();
nock.enableNetConnect(/^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/);

/**
 * Once per run, in mocha's main process: one database server for every test process. With
 * `--parallel` the workers start after this and find it through TEST_DATABASE_URL.
 */
export async function mochaGlobalSetup(): Promise<void> {
  // The bundle `bin/cms.js` starts from (runtime/bundle.ts), made once here for the current sources
  // rather than by whichever of the tests' processes starts first, several at a time.
  markMainProcess();
  const bundling = sourceBundle();
  // Asked even when TEST_DATABASE_URL is set: the teardown below drops the run's databases through
  // it, the workers' included (they leave their last file's and their templates behind).
  const serverUrl = await testServerUrl();
  process.env.TEST_DATABASE_URL ??= serverUrl;
  await bundling;
}

/** Once per run, at the very end: every database of the run dropped, the embedded cluster stopped. */
export async function mochaGlobalTeardown(): Promise<void> {
  await teardownTestDatabases();
}

export const mochaHooks = {
  async afterEach(this: Mocha.Context) {
    await runAfterEachTest();
  },
  // After the root suite, that is after each file in a parallel worker: the helpers' shared products
  // close, then the test databases go.
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await runAfterRoot();
    void releaseTestDatabases();
  },
};
