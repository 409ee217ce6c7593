import nock from 'nock';
import { setScryptCostForTests } from '../kernel/passwords.ts';
import { teardownTestDatabases } from './helpers/database.ts';

// Cheap password hashing for the suite only: it creates hundreds of users, and scrypt at production
// cost (test/unit/passwords.test.ts proves it is the default) would dominate the run time.
setScryptCostForTests({ N: 1024, r: 8, p: 1 });

// Outbound HTTP is refused unless a test sets it up (nock) or talks to a local server it started.
nock.disableNetConnect();
nock.enableNetConnect(/^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/);

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await teardownTestDatabases();
  },
};
