import type { TestKernel } from '../../../test/helpers/kernel.ts';
import content from '../index.ts';
import type { GatewayBindingSource, WebsiteUploadRules } from '../ports.ts';

/**
 * The items the content plugin contributes to the gateway's and the asset plugin's registries, built
 * from the running kernel's content context as the kernel builds them (the tests load neither collector).
 */
export function contentContributions(t: TestKernel): {
  bindings: GatewayBindingSource;
  uploadRules: WebsiteUploadRules;
} {
  const ctx = t.kernel.pluginDeps('content') as never;
  return {
    bindings: content.contributes!.gatewayBindingSources!(ctx) as GatewayBindingSource,
    uploadRules: content.contributes!.websiteUploadRules!(ctx) as WebsiteUploadRules,
  };
}
