import { randomUUID } from 'node:crypto';
import type { AuditContext, AuditWriter, Clock, Db } from '../../../kernel/index.ts';
import { finishRuns, insertRun, openRuns } from '../store/erase-runs.ts';

interface Target {
  targetType: string;
  targetId: string;
}

/**
 * The audit trail of real erases, safe against a process that dies half-way: a run writes its row
 * and the audit row `data_subject.erase.started` (what was found to erase, the earlier runs it
 * resumes) in one transaction before the first deletion, and `data_subject.erase` (what it erased)
 * with its end. A run that never ended stays open; the next real erase of the same person resumes it
 * and names it in `resumes` and `completes`, so every deletion lies between a started row and the
 * row of the run that completed it.
 */
export class EraseRuns {
  constructor(private readonly deps: { db: Db; audit: AuditWriter; clock: Clock }) {}

  async start(
    ctx: AuditContext,
    target: Target,
    found: Record<string, number>,
    options: Record<string, unknown>,
  ): Promise<{ id: string; resumes: string[] }> {
    const id = randomUUID();
    return this.deps.db.transaction(async (trx) => {
      const resumes = await openRuns(trx, target.targetId);
      await insertRun(trx, { id, subject: target.targetId, started_at: this.deps.clock.now() });
      await this.deps.audit.record(
        ctx,
        { action: 'data_subject.erase.started', ...target, after: { runId: id, resumes, found, options } },
        trx,
      );
      return { id, resumes };
    });
  }

  async finish(
    ctx: AuditContext,
    target: Target,
    run: { id: string; resumes: string[] },
    after: Record<string, unknown>,
  ): Promise<void> {
    await this.deps.db.transaction(async (trx) => {
      await finishRuns(trx, [run.id, ...run.resumes], run.id, this.deps.clock.now());
      await this.deps.audit.record(
        ctx,
        { action: 'data_subject.erase', ...target, after: { runId: run.id, completes: run.resumes, ...after } },
        trx,
      );
    });
  }
}
