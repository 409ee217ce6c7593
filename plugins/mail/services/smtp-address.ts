import type { ServiceMap } from '../../../kernel/index.ts';

/**
 * Why the outbound address policy refuses an SMTP host, or undefined. SMTP is not HTTP, but the
 * addresses it may reach are the same question: the gateway's policy (link-local and cloud metadata
 * addresses always, loopback in production unless `OUTBOUND_ALLOW_HOSTS` names the host, private
 * ranges when `OUTBOUND_ALLOW_PRIVATE=false`) is asked with the host alone (the scheme and port do not
 * matter to it). A name that does not resolve now is left to the connection, which reports it. Without
 * the gateway plugin nothing is checked here (the kernel's guard still is).
 */
export async function smtpHostRefusal(
  outbound: ServiceMap['outboundFetch'] | undefined,
  host: string,
): Promise<string | undefined> {
  if (!outbound) return undefined;
  const reason = await outbound.refusal(`http://${host}/`);
  if (reason === undefined || / does not resolve \(/.test(reason)) return undefined;
  return reason;
}
