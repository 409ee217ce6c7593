import { badRequest } from '../../../kernel/index.ts';

const FILE_KEY = /^[A-Za-z0-9]{10,128}$/;
/** `12:34`, `I12:34;56:78` (instance children), as the API writes node ids. */
const NODE_ID = /^I?[0-9]{1,12}:[0-9]{1,12}(;[0-9]{1,12}:[0-9]{1,12}){0,16}$/;
const FIGMA_HOSTS = new Set(['figma.com', 'www.figma.com']);

/**
 * The file key and node id of a Figma link (`https://www.figma.com/design/<key>/<name>?node-id=1-2`,
 * also `/file/`, `/proto/`, `/board/`), or of the `fileKey`/`nodeId` given. A link's node id uses a
 * dash (`1-2`), the API a colon (`1:2`).
 */
export function figmaTarget(input: { fileKey?: string; nodeId?: string; url?: string }): {
  fileKey: string;
  nodeId: string | null;
} {
  let fileKey = input.fileKey;
  let nodeId = input.nodeId;
  if (input.url !== undefined) {
    let link: URL;
    try {
      link = new URL(input.url);
    } catch {
      throw badRequest('url is not a URL', 'url', 'INVALID_FIGMA_LINK');
    }
    if (link.protocol !== 'https:' || !FIGMA_HOSTS.has(link.hostname))
      throw badRequest('url must be an https://www.figma.com link', 'url', 'INVALID_FIGMA_LINK');
    const [kind, key] = link.pathname.split('/').filter(Boolean);
    if (!['file', 'design', 'proto', 'board'].includes(kind ?? '') || !key)
      throw badRequest('url must be a link to a Figma design file (/design/<key>/...)', 'url', 'INVALID_FIGMA_LINK');
    if (fileKey !== undefined && fileKey !== key)
      throw badRequest('fileKey and the key in url differ', 'fileKey', 'INVALID_FIGMA_LINK');
    fileKey = key;
    const fromLink = link.searchParams.get('node-id');
    if (fromLink !== null && nodeId === undefined) nodeId = fromLink.replace('-', ':');
  }
  if (fileKey === undefined) throw badRequest('fileKey or url is required', 'fileKey');
  if (!FILE_KEY.test(fileKey)) throw badRequest('fileKey must be a Figma file key (letters and digits)', 'fileKey');
  if (nodeId !== undefined && !NODE_ID.test(nodeId))
    throw badRequest('nodeId must be a Figma node id such as 12:34', input.url && !input.nodeId ? 'url' : 'nodeId');
  return { fileKey, nodeId: nodeId ?? null };
}
