import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';

const LOGS = '/api/v1/system/logs';
const DOWNLOAD = '/api/v1/system/logs/download';

const tempDir = () => mkdtemp(path.join(os.tmpdir(), 'cms-logs-'));
const logFilesIn = async (dir: string) => (await readdir(dir)).filter((n) => n.endsWith('.log')).sort();

describe('system logs of one process (all-in-one, LOG_DIR)', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let dir: string;
  let reader: TestUser;
  let other: TestUser;

  before(async () => {
    dir = await tempDir();
    t = await startTestKernel({
      plugins: ['system-logs'],
      env: { LOG_DIR: dir, LOG_LEVEL: 'debug', LOG_FILE_MAX_MB: '1', LOG_FILE_COUNT: '2' },
    });
    ({ reader, other } = await t.users({ reader: ['system:logs'], other: ['audit:read'] }));
  });
  after(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const logger = () => t.kernel.resolve('logger');

  it('writes every line to <LOG_DIR>/all-in-one.<n>.log and answers the tail, oldest first', async () => {
    logger().debug({ step: 1 }, 'tail-check one');
    logger().info({ step: 2 }, 'tail-check two');
    logger().warn({ step: 3 }, 'tail-check three');
    logger().trace('below the level: never written');

    const res = await t.call('GET', `${LOGS}?lines=3`, reader);
    expect(res.statusCode).to.equal(200);
    expect(res.headers['cache-control']).to.equal('no-store');
    const lines = res.json().lines as Array<Record<string, unknown>>;
    expect(lines.map((l) => l.msg)).to.deep.equal(['tail-check one', 'tail-check two', 'tail-check three']);
    expect(lines.map((l) => l.level)).to.deep.equal(['debug', 'info', 'warn']);
    expect(lines[2]).to.include({ service: 'all-in-one' });
    expect(Date.parse(lines[2].time as string)).to.be.closeTo(Date.now(), 60_000);
    expect(JSON.parse(lines[2].line as string)).to.include({ msg: 'tail-check three', step: 3, service: 'all-in-one' });

    const files = await logFilesIn(dir);
    expect(files).to.have.length(1);
    expect(files[0]).to.match(/^all-in-one\.\d+\.log$/);
    const text = await readFile(path.join(dir, files[0]), 'utf8');
    expect(text).to.contain('tail-check two');
    expect(text).not.to.contain('never written');
  });

  it('filters by level: warn is warn and above', async () => {
    logger().error('level-check error');
    logger().info('level-check info');
    const lines = (await t.call('GET', `${LOGS}?level=warn&lines=1000`, reader)).json().lines as Array<{
      level: string;
      msg: string;
    }>;
    expect(lines.length).to.be.greaterThan(1);
    expect(lines.every((l) => l.level === 'warn' || l.level === 'error' || l.level === 'fatal')).to.equal(true);
    expect(lines.map((l) => l.msg))
      .to.include('level-check error')
      .and.not.include('level-check info');
  });

  it('refuses bad values with a 400 naming the parameter, and needs system:logs', async () => {
    for (const [query, field] of [
      ['lines=0', 'lines'],
      ['lines=1001', 'lines'],
      ['lines=ten', 'lines'],
      ['level=verbose', 'level'],
      ['service=editor', 'service'],
      ['line=5', 'line'],
    ]) {
      const res = await t.call('GET', `${LOGS}?${query}`, reader);
      expect(res.statusCode, query).to.equal(400);
      const body = res.json();
      expect(`${body.field} ${body.message}`, query).to.contain(field);
    }
    expect((await t.call('GET', LOGS, null)).statusCode).to.equal(401);
    expect((await t.call('GET', LOGS, other)).statusCode).to.equal(403);
    expect((await t.call('GET', DOWNLOAD, other)).statusCode).to.equal(403);
  });

  it('downloads every file as one stream of JSON lines', async () => {
    logger().info('download-check');
    const res = await t.call('GET', DOWNLOAD, reader);
    expect(res.statusCode).to.equal(200);
    expect(res.headers['content-type']).to.equal('application/x-ndjson; charset=utf-8');
    expect(res.headers['content-disposition']).to.match(/^attachment; filename="cms-logs-all-\d{8}T\d{6}Z\.ndjson"$/);
    const records = res.body
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string });
    const messages = records.map((r) => r.msg);
    expect(messages).to.include.members(['tail-check one', 'level-check error', 'download-check']);
    expect(messages.indexOf('tail-check one')).to.be.lessThan(messages.indexOf('download-check'));
  });

  it('rotates past LOG_FILE_MAX_MB and keeps LOG_FILE_COUNT closed files; the tail reads across files', async () => {
    const filler = 'x'.repeat(1000);
    // In batches, as a process logs: a file changes once a write took it past the size.
    for (let batch = 0; batch < 60; batch++) {
      for (let i = 0; i < 100; i++) logger().info({ i, filler }, 'rotation-filler');
      await t.kernel.resolve('logFiles').flush();
    }
    logger().info('after-rotation');
    // The deletion of the oldest file runs after the file changes; give it its turn.
    let files: string[] = [];
    for (let i = 0; i < 50; i++) {
      files = await logFilesIn(dir);
      if (files.length === 3) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(files).to.have.length(3); // LOG_FILE_COUNT closed files and the current one
    const numbers = files.map((f) => Number(f.split('.')[1])).sort((a, b) => a - b);
    expect(numbers.at(-1)).to.be.greaterThan(3);

    const lines = (await t.call('GET', `${LOGS}?lines=1000`, reader)).json().lines as Array<{ msg: string }>;
    expect(lines).to.have.length(1000);
    expect(lines.at(-1)?.msg).to.equal('after-rotation');
    expect(new Set(lines.slice(0, -1).map((l) => l.msg))).to.deep.equal(new Set(['rotation-filler']));
  });
});

describe('system logs without LOG_DIR', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: ['system-logs'] });
  });
  after(() => t?.close());

  it('answers 404 LOG_FILES_OFF, naming what to set', async () => {
    const admin = await t.admin();
    for (const url of [LOGS, DOWNLOAD]) {
      const res = await t.call('GET', url, admin);
      expect(res.statusCode).to.equal(404);
      expect(res.json()).to.include({ code: 'LOG_FILES_OFF' });
      expect(res.json().message).to.contain('LOG_DIR');
    }
  });
});
