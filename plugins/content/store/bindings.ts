import type { Db, Tx } from '../../../kernel/index.ts';
import type { GatewayBinding } from '../ports.ts';

interface BindingRow {
  id: string;
  website_id: string;
  page_id: string | null;
  endpoint_id: string;
  route_id: string;
  parameters: GatewayBinding['parameters'];
  result_filter: GatewayBinding['resultFilter'];
  mode: GatewayBinding['mode'];
}

const toBinding = (r: BindingRow): GatewayBinding => ({
  id: r.id,
  websiteId: r.website_id,
  pageId: r.page_id,
  endpointId: r.endpoint_id,
  routeId: r.route_id,
  parameters: r.parameters,
  resultFilter: r.result_filter,
  mode: r.mode,
});

export class BindingStore {
  constructor(private readonly db: Db) {}

  /** A binding with `live`: true while its page is published (a binding without a page is never live). */
  async find(id: string, trx?: Tx): Promise<GatewayBinding | undefined> {
    const row = await (trx ?? this.db)('content_gateway_bindings as b')
      .leftJoin('content_pages as p', 'p.id', 'b.page_id')
      .where('b.id', id)
      .first('b.*', 'p.published as page_published');
    return row ? { ...toBinding(row), live: row.page_published === true } : undefined;
  }

  async idsOfPage(pageId: string, trx: Tx): Promise<Set<string>> {
    const rows: Array<{ id: string }> = await trx('content_gateway_bindings').select('id').where({ page_id: pageId });
    return new Set(rows.map((r) => r.id));
  }

  /** Replaces a page's bindings with `bindings` (ids kept where the node kept them). */
  async replaceForPage(pageId: string, bindings: GatewayBinding[], trx: Tx): Promise<void> {
    await trx('content_gateway_bindings').where({ page_id: pageId }).delete();
    if (!bindings.length) return;
    await trx('content_gateway_bindings').insert(
      bindings.map((b) => ({
        id: b.id,
        website_id: b.websiteId,
        page_id: pageId,
        endpoint_id: b.endpointId,
        route_id: b.routeId,
        parameters: JSON.stringify(b.parameters),
        result_filter: b.resultFilter ? JSON.stringify(b.resultFilter) : null,
        mode: b.mode,
      })),
    );
  }
}
