/**
 * The kernel cache notice of everything the content plugin keeps in memory per process (websites and
 * their roots, layouts, themes, menus, published page patterns, sitemaps, settings): a write in any
 * process drops all of it in every process (it is reloaded on the next read).
 */
export const CONTENT_CACHE = 'content.sites';
