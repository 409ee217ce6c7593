import nock from 'nock';
import { teardownTestDatabases } from './helpers/database.ts';

// Outbound HTTP is refused unless a test sets it up (nock) or talks to a local server it started.
nock.disableNetConnect();
nock.enableNetConnect(/^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/);

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await teardownTestDatabases();
  },
};
