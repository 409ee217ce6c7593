/**
 * The content plugin's port as the gateway reads it. The types are the content plugin's
 * (`plugins/content/ports.ts`, container name `publishedSites`): the kernel's `PluginServices` carries
 * them, so no file of that plugin is imported here.
 */
import type { PluginServices } from '../../../kernel/index.ts';

export type PublishedSites = PluginServices['publishedSites'];
export type GatewayBinding = NonNullable<Awaited<ReturnType<PublishedSites['findBinding']>>>;
export type BindingResultFilter = NonNullable<GatewayBinding['resultFilter']>;
