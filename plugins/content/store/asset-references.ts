import type { Db } from '../../../kernel/index.ts';

/**
 * Every place the content plugin stores text that can name a library file (an id, a uuid, a path,
 * `/dam-asset/<path>` inside HTML or CSS): one label and the folded text per row. History counts:
 * restoring a version must still find its images.
 */
const HOLDERS = `
  SELECT 'page ' || path || ' (' || locale || ')' AS holder,
         lower(content::text || ' ' || seo::text || ' ' || coalesce(thumbnail, '')) AS hay FROM content_pages
  UNION ALL SELECT 'staged page ' || path, lower(content::text || ' ' || seo::text) FROM content_staged_pages
  UNION ALL SELECT 'snippet ' || name, lower(content::text || ' ' || coalesce(thumbnail, '')) FROM content_snippets
  UNION ALL SELECT 'template ' || name, lower(content::text) FROM content_templates
  UNION ALL SELECT 'layout ' || name, lower(regions::text || ' ' || slots::text) FROM content_layouts
  UNION ALL SELECT 'theme ' || name, lower(colors::text || ' ' || fonts::text || ' ' || custom_styles) FROM content_themes
  UNION ALL SELECT 'menu item ' || label, lower(label || ' ' || coalesce(path, '')) FROM content_website_paths
  UNION ALL SELECT 'website ' || name, lower(settings::text) FROM content_websites
  UNION ALL SELECT 'setting ' || key, lower(value::text) FROM content_settings
  UNION ALL SELECT 'saved version of a ' || owner_type, lower(content::text) FROM content_versions
  UNION ALL SELECT 'gateway binding', lower(parameters::text || ' ' || coalesce(result_filter::text, ''))
    FROM content_gateway_bindings`;

/**
 * Which of `refs` any page, snippet, template, layout, theme, menu item, website, setting, saved
 * version or binding holds anywhere in its text (as written, or as JSON text shows it: quotes and
 * backslashes escaped), without case: the first holder of each. A path inside a longer one counts
 * too, so a file is kept rather than erased under content that may show it.
 */
export async function contentHoldingAssets(
  db: Db,
  refs: readonly string[],
): Promise<Array<{ ref: string; holder: string }>> {
  if (refs.length === 0) return [];
  const { rows } = await db.raw(
    `WITH n AS (
       SELECT ref, lower(ref) AS raw, lower(trim(both '"' from to_json(ref)::text)) AS js
         FROM unnest(?::text[]) AS f(ref))
     SELECT n.ref, h.holder FROM n CROSS JOIN LATERAL (
       SELECT x.holder FROM (${HOLDERS}) x
        WHERE strpos(x.hay, n.raw) > 0 OR strpos(x.hay, n.js) > 0
        LIMIT 1) h`,
    [refs as string[]],
  );
  return rows as Array<{ ref: string; holder: string }>;
}
