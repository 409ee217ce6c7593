import type { Knex } from 'knex';

// Websites, pages and everything the editor stores around them. Node trees are jsonb; the public page
// read is one lookup on the unique (website_id, locale, path) index. Versions of pages and snippets
// share one table keyed by owner type and id (10 most recent kept by the services).
export async function up(knex: Knex): Promise<void> {
  const times = (t: Knex.CreateTableBuilder) => {
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  };
  await knex.schema.createTable('content_websites', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.text('root_path').notNullable().unique();
    t.jsonb('locales').notNullable().defaultTo('["en"]');
    t.jsonb('settings').notNullable().defaultTo('{}');
    t.text('theme');
    t.jsonb('domains').notNullable().defaultTo('[]');
    t.text('kind').notNullable().defaultTo('website');
    t.text('site_key_hash');
    times(t);
  });
  await knex.schema.createTable('content_pages', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('website_id').notNullable().references('content_websites.id').onDelete('CASCADE');
    t.text('locale').notNullable();
    t.uuid('translation_group_id').notNullable();
    t.text('path').notNullable();
    t.boolean('dynamic').notNullable().defaultTo(false);
    t.text('data_class');
    t.text('title').notNullable();
    t.jsonb('content').notNullable();
    t.jsonb('seo').notNullable().defaultTo('{}');
    t.boolean('in_sitemap').notNullable().defaultTo(true);
    t.boolean('indexable').notNullable().defaultTo(true);
    t.boolean('published').notNullable().defaultTo(false);
    t.timestamp('published_at', { useTz: true });
    t.text('kind');
    t.text('thumbnail');
    times(t);
    t.unique(['website_id', 'locale', 'path']);
    t.index(['translation_group_id']);
  });
  await knex.schema.createTable('content_versions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('owner_type').notNullable();
    t.uuid('owner_id').notNullable();
    t.text('title');
    t.jsonb('content').notNullable();
    t.text('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['owner_type', 'owner_id', 'created_at']);
  });
  await knex.schema.createTable('content_snippets', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.uuid('website_id');
    t.jsonb('content').notNullable();
    t.boolean('locked').notNullable().defaultTo(false);
    t.text('thumbnail');
    times(t);
  });
  await knex.schema.createTable('content_templates', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('path').notNullable().unique();
    t.text('name').notNullable();
    t.jsonb('content').notNullable();
    times(t);
  });
  await knex.schema.createTable('content_kits', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable().unique();
    t.jsonb('template_ids').notNullable().defaultTo('[]');
    times(t);
  });
  await knex.schema.createTable('content_layouts', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('website_id').notNullable().references('content_websites.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.jsonb('regions').notNullable().defaultTo('{}');
    t.jsonb('slots').notNullable().defaultTo('{}');
    t.jsonb('path_patterns').notNullable().defaultTo('[]');
    t.text('locale');
    t.boolean('is_default').notNullable().defaultTo(false);
    times(t);
  });
  await knex.schema.createTable('content_website_paths', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('website_id').notNullable().references('content_websites.id').onDelete('CASCADE');
    t.uuid('parent_id').references('content_website_paths.id').onDelete('CASCADE');
    t.text('label').notNullable();
    t.text('path');
    t.uuid('page_id').references('content_pages.id').onDelete('SET NULL');
    t.integer('position').notNullable().defaultTo(0);
    times(t);
  });
  await knex.schema.createTable('content_themes', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('website_id').references('content_websites.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.jsonb('colors').notNullable().defaultTo('{}');
    t.jsonb('fonts').notNullable().defaultTo('{}');
    t.text('custom_styles').notNullable().defaultTo('');
    t.boolean('is_default').notNullable().defaultTo(false);
    times(t);
  });
  // One active default theme per website, enforced by the database.
  await knex.raw('create unique index content_themes_one_default on content_themes (website_id) where is_default');
  await knex.schema.createTable('content_settings', (t) => {
    t.text('key').primary();
    t.jsonb('value').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('content_staged_pages', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('website_id').notNullable().references('content_websites.id').onDelete('CASCADE');
    t.text('locale').notNullable();
    t.text('path').notNullable();
    t.text('title').notNullable();
    t.jsonb('content').notNullable();
    t.jsonb('seo').notNullable().defaultTo('{}');
    t.text('source');
    t.text('state').notNullable().defaultTo('staged');
    t.uuid('page_id');
    times(t);
  });
  await knex.schema.createTable('content_gateway_bindings', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('website_id').notNullable().references('content_websites.id').onDelete('CASCADE');
    t.uuid('page_id').references('content_pages.id').onDelete('CASCADE');
    t.text('endpoint_id').notNullable();
    t.text('route_id').notNullable();
    t.jsonb('parameters').notNullable().defaultTo('{}');
    t.jsonb('result_filter');
    t.text('mode').notNullable().defaultTo('resolve');
    times(t);
    t.index(['page_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'content_gateway_bindings',
    'content_staged_pages',
    'content_settings',
    'content_themes',
    'content_website_paths',
    'content_layouts',
    'content_kits',
    'content_templates',
    'content_snippets',
    'content_versions',
    'content_pages',
    'content_websites',
  ])
    await knex.schema.dropTableIfExists(table);
}
