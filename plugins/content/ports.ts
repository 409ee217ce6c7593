import type { PluginContributions } from '../../kernel/index.ts';

/**
 * The content plugin provides no service: nothing depends on it, which keeps the plugin graph acyclic
 * (it uses `dataObjects` and `gatewayRoutes` when loaded). It contributes to registries others collect:
 * - `gatewayBindingSources` (gateway): the gateway content bindings. A page node that reads
 *   third-party data gets a server-assigned `gatewayBindingId` when the page is saved, stored in this
 *   plugin's table `content_gateway_bindings`; the gateway's `/api/v1/gateway/resolve` and `/submit`
 *   read them, and check the website's site key, through this source (live only while the page is
 *   published; previews by users holding `objects:read`);
 * - `websiteUploadRules` (assets): which website a public form upload is for, and its upload rules
 *   (`settings.uploads`), read by the asset plugin's upload intent and by public form submits;
 * - `searchSources` (search): pages;
 * - `sitePublishSources` (publish): published pages and the HTML the live site serves for each, for static builds;
 * - `mailRenderers` (mail): the snippet and page e-mail renderer, for mail templates;
 * - `formNotifySources` (forms): the `notify` blocks saved in forms (`{ type: 'form', props: { classId, notify } }`) of pages.
 * - `publishedFormSources` (forms): whether a published page (or a layout around one) shows a form for a class.
 * - `aiContentTargets` (ai): node-tree checks of generated content, page translations and websites made from a generated structure.
 * The item types belong to the collecting plugins (their `ports.ts`); these names are for this plugin's files.
 */
export type GatewayBindingSource = PluginContributions['gatewayBindingSources'];
export type GatewayBinding = NonNullable<Awaited<ReturnType<GatewayBindingSource['findBinding']>>>;
export type WebsiteUploadRules = PluginContributions['websiteUploadRules'];
export type WebsiteUploadSettings = NonNullable<Awaited<ReturnType<WebsiteUploadRules['uploadSettings']>>>;
