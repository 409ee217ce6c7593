import { parseArgs } from 'node:util';
import { createLogger } from '../../../kernel/index.ts';
import { PublishRunner } from './runner.ts';
import { loadRunnerSettings } from './settings.ts';

/** `cms publish-runner [--once]`: one job (or none) with `--once`, otherwise jobs until a signal. */
export async function runPublishRunner(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { once: { type: 'boolean' } } });
  const settings = loadRunnerSettings(process.env);
  const logger = createLogger(process.env.LOG_LEVEL ?? 'info');
  const runner = new PublishRunner(settings, logger);
  if (values.once) {
    const outcome = await runner.runOnce();
    console.log(outcome === 'idle' ? 'no queued publish job' : `publish job ${outcome}`);
    if (outcome === 'failed') process.exitCode = 1;
    return;
  }
  // The first signal lets the job in hand finish; a second one stops at once (the job's lease runs
  // out and it is queued again).
  const stop = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) process.exit(130);
    logger.info('publish runner: stopping after the job in hand');
    stop.abort();
  };
  process.on('SIGTERM', onSignal).on('SIGINT', onSignal);
  logger.info({ api: settings.PUBLISH_API_URL }, 'publish runner: waiting for jobs');
  await runner.loop(stop.signal);
}
