import { randomUUID } from 'node:crypto';
import {
  badRequest,
  conflict,
  diffForAudit,
  isUniqueViolation,
  notFound,
  unavailable,
  type AuditContext,
  type AuditWriter,
  type Clock,
  type Db,
  type Jobs,
  type ServiceMap,
  type Tx,
} from '../../../kernel/index.ts';
import { ZERO_ID, type EventEnvelope } from '../events.ts';
import { insertEventWithDeliveries } from '../store/event-store.ts';
import { DELIVERY_QUEUE } from '../ports.ts';
import type { SubscriptionRow, SubscriptionStore, SubscriptionWrite } from '../store/subscription-store.ts';
import type { SubscriptionCache } from './subscription-cache.ts';

export interface SubscriptionInput {
  name?: string;
  events?: string[];
  endpointId?: string;
  routeId?: string;
  classId?: string | null;
  enabled?: boolean;
  ignoreActors?: string[];
  signingSecretRef?: string | null;
}

export interface SubscriptionView {
  id: string;
  name: string;
  enabled: boolean;
  classId: string | null;
  events: string[];
  endpointId: string;
  routeId: string;
  ignoreActors: string[];
  signingSecretRef: string | null;
  payloadMode: 'minimal';
  /** The loop guard stopped a delivery within the last day (badge), and when it last did. */
  loopGuard: { tripped: boolean; lastTrippedAt: string | null };
  createdAt: string;
  updatedAt: string;
}

type GatewayRoutes = ServiceMap['gatewayRoutes'];

const AUDIT_FIELDS = {
  allow: ['name', 'enabled', 'classId', 'events', 'endpointId', 'routeId', 'ignoreActors', 'signingSecretRef'],
} as const;
const DELIVERY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const DAY_MS = 86_400_000;

/** Subscription rules: the route must exist and take a body at a fixed path; names are unique. */
export class SubscriptionService {
  constructor(
    private readonly deps: {
      db: Db;
      store: SubscriptionStore;
      cache: SubscriptionCache;
      clock: Clock;
      audit: AuditWriter;
      gatewayRoutes: GatewayRoutes | undefined;
      jobs: Jobs;
      eventsEnabled: boolean;
    },
  ) {}

  async list(): Promise<SubscriptionView[]> {
    return (await this.deps.store.list()).map((r) => this.view(r));
  }

  async get(id: string): Promise<SubscriptionView> {
    return this.view(await this.require(id));
  }

  async create(
    ctx: AuditContext,
    input: Required<Pick<SubscriptionInput, 'name' | 'events' | 'endpointId' | 'routeId'>> & SubscriptionInput,
  ): Promise<SubscriptionView> {
    await this.checkRoute(input.endpointId, input.routeId);
    const row = await this.write(async (trx) => {
      const created = await this.deps.store.insert(toColumns(input), this.deps.clock.now(), trx);
      const after = diffForAudit(null, auditable(created), AUDIT_FIELDS)?.after ?? null;
      await this.deps.audit.record(
        ctx,
        {
          action: 'object_event_subscription.create',
          targetType: 'object_event_subscription',
          targetId: created.id,
          targetLabel: created.name,
          after,
        },
        trx,
      );
      return created;
    });
    return this.view(row);
  }

  async update(ctx: AuditContext, id: string, input: SubscriptionInput): Promise<SubscriptionView> {
    const current = await this.require(id);
    if (input.endpointId !== undefined || input.routeId !== undefined) {
      await this.checkRoute(input.endpointId ?? current.endpoint_id, input.routeId ?? current.route_id);
    }
    const row = await this.write(async (trx) => {
      const before = await this.deps.store.getForUpdate(id, trx);
      if (!before) throw notFound('Subscription not found');
      const changes = toColumns(input);
      const diff = diffForAudit(auditable(before), auditable({ ...before, ...changes }), AUDIT_FIELDS);
      if (!diff) return before;
      const updated = await this.deps.store.update(id, changes, this.deps.clock.now(), trx);
      await this.deps.audit.record(
        ctx,
        {
          action: 'object_event_subscription.update',
          targetType: 'object_event_subscription',
          targetId: id,
          targetLabel: updated.name,
          ...diff,
        },
        trx,
      );
      return updated;
    });
    return this.view(row);
  }

  async remove(ctx: AuditContext, id: string): Promise<void> {
    await this.write(async (trx) => {
      const before = await this.deps.store.getForUpdate(id, trx);
      if (!before) throw notFound('Subscription not found');
      await this.deps.store.delete(id, trx);
      const diff = diffForAudit(auditable(before), null, AUDIT_FIELDS);
      await this.deps.audit.record(
        ctx,
        {
          action: 'object_event_subscription.delete',
          targetType: 'object_event_subscription',
          targetId: id,
          targetLabel: before.name,
          before: diff?.before ?? null,
        },
        trx,
      );
    });
  }

  /** Queues a synthetic object.updated (test: true, all-zero object) for this one subscription. */
  async queueTest(id: string): Promise<{ eventId: string }> {
    if (!this.deps.eventsEnabled)
      throw unavailable('Object events are switched off (OBJECT_EVENTS_ENABLED=0)', 'OBJECT_EVENTS_DISABLED');
    const sub = await this.require(id);
    const now = this.deps.clock.now();
    const eventId = randomUUID();
    const envelope: EventEnvelope = {
      type: 'object.updated',
      occurredAt: now.toISOString(),
      class: { id: sub.class_id ?? ZERO_ID, name: 'test' },
      object: {
        id: ZERO_ID,
        translationGroupId: ZERO_ID,
        locale: 'en',
        key: null,
        published: false,
        workflowState: null,
        updatedAt: now.toISOString(),
      },
      changed: [],
      actor: { type: 'system', id: null },
      test: true,
    };
    const { stored } = await this.deps.db.transaction(async (trx) => {
      const result = await insertEventWithDeliveries(
        trx,
        {
          id: eventId,
          type: 'object.updated',
          recordType: 'object',
          recordId: ZERO_ID,
          occurredAt: now,
          envelope,
          match: { classId: null, actorId: null, checkFilters: false },
        },
        [{ subscriptionId: id, status: 'pending', problem: null }],
      );
      await this.deps.jobs.enqueueMany(DELIVERY_QUEUE, result.queued, { trx });
      return result;
    });
    if (stored === 0) throw notFound('Subscription not found');
    return { eventId };
  }

  async require(id: string, trx?: Tx): Promise<SubscriptionRow> {
    const row = await this.deps.store.get(id, trx);
    if (!row) throw notFound('Subscription not found');
    return row;
  }

  private async checkRoute(endpointId: string, routeId: string): Promise<void> {
    const gatewayRoutes = this.deps.gatewayRoutes;
    // Without the gateway plugin no route exists at all.
    const route = gatewayRoutes && (await gatewayRoutes.findRoute(endpointId, routeId));
    if (!route) throw badRequest('No such route of this endpoint', 'routeId', 'GATEWAY_ROUTE_NOT_FOUND');
    if (!DELIVERY_METHODS.has(route.method.toUpperCase()))
      throw badRequest('The route must be POST, PUT or PATCH', 'routeId', 'ROUTE_METHOD');
    if (route.pathParams.length > 0 || /\{[^}]*\}/.test(route.pathTemplate)) {
      throw badRequest('The route must have a fixed path (no {parameters})', 'routeId', 'ROUTE_HAS_PARAMETERS');
    }
  }

  /** One transaction per write; the cache is dropped at once and again after commit. */
  private async write<T>(work: (trx: Tx) => Promise<T>): Promise<T> {
    try {
      return await this.deps.db.transaction(work);
    } catch (err) {
      if (isUniqueViolation(err))
        throw conflict('A subscription with this name already exists', 'UNIQUE_VIOLATION', 'name');
      throw err;
    } finally {
      this.deps.cache.invalidate();
    }
  }

  view(row: SubscriptionRow): SubscriptionView {
    const tripped = row.loop_tripped_at ? new Date(row.loop_tripped_at) : null;
    return {
      id: row.id,
      name: row.name,
      enabled: row.enabled,
      classId: row.class_id,
      events: row.events,
      endpointId: row.endpoint_id,
      routeId: row.route_id,
      ignoreActors: row.ignore_actors,
      signingSecretRef: row.signing_secret_ref,
      payloadMode: 'minimal',
      loopGuard: {
        tripped: tripped !== null && this.deps.clock.now().getTime() - tripped.getTime() < DAY_MS,
        lastTrippedAt: tripped?.toISOString() ?? null,
      },
      createdAt: new Date(row.created_at).toISOString(),
      updatedAt: new Date(row.updated_at).toISOString(),
    };
  }
}

function toColumns(input: SubscriptionInput): SubscriptionWrite {
  const out: SubscriptionWrite = {};
  if (input.name !== undefined) out.name = input.name;
  if (input.events !== undefined) out.events = [...new Set(input.events)];
  if (input.endpointId !== undefined) out.endpoint_id = input.endpointId;
  if (input.routeId !== undefined) out.route_id = input.routeId;
  if (input.classId !== undefined) out.class_id = input.classId;
  if (input.enabled !== undefined) out.enabled = input.enabled;
  if (input.ignoreActors !== undefined) out.ignore_actors = [...new Set(input.ignoreActors)];
  if (input.signingSecretRef !== undefined) out.signing_secret_ref = input.signingSecretRef;
  return out;
}

function auditable(row: Partial<SubscriptionRow>): Record<string, unknown> {
  return {
    name: row.name,
    enabled: row.enabled,
    classId: row.class_id ?? null,
    events: row.events,
    endpointId: row.endpoint_id,
    routeId: row.route_id,
    ignoreActors: row.ignore_actors,
    signingSecretRef: row.signing_secret_ref ?? null,
  };
}
