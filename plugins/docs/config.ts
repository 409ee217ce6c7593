import { Type } from '@sinclair/typebox';

export const DocsConfig = Type.Object({
  DOCS_MAX_FILE_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 50 * 1024 * 1024,
    default: 2 * 1024 * 1024,
    description: 'largest Markdown file a documentation site publishes (a larger one is a FILE_TOO_LARGE warning)',
  }),
  DOCS_MAX_FILES: Type.Integer({
    minimum: 1,
    maximum: 20_000,
    default: 5_000,
    description: 'files of a documentation folder a site reads at most (beyond: a TOO_MANY_FILES warning)',
  }),
  DOCS_REVALIDATE_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    default: 60,
    description:
      'longest time a documentation site is served without asking for its folder again (changes arrive sooner, through asset change notices)',
  }),
  DOCS_PUBLIC_RATE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 1_200,
    description: 'public documentation requests per client address and minute (429 with Retry-After beyond)',
  }),
});
