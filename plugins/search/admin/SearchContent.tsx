import { Anchor, Badge, Group, Pagination, Paper, Select, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import {
  api,
  EmptyState,
  ErrorState,
  LoadingState,
  PageHeader,
  unwrap,
  useUrlState,
} from '../../admin-ui/app/src/sdk/index.ts';

const PAGE = 20;

/** `/admin/search?q=...`: every document the search index holds (drafts too), the query in the URL. */
export default function SearchContent() {
  const url = useUrlState(['q', 'visibility'] as const);
  const [text, setText] = useState(url.values.q);
  useEffect(() => setText(url.values.q), [url.values.q]);
  const q = url.values.q.trim();
  const visibility = url.values.visibility;
  const results = useQuery({
    queryKey: ['search', 'content', q, visibility, url.page],
    enabled: q.length > 0,
    queryFn: async () =>
      unwrap(
        await api.GET('/cms-one/search', {
          params: {
            query: {
              q,
              limit: PAGE,
              offset: (url.page - 1) * PAGE,
              ...(visibility ? { public: visibility === 'public' } : {}),
            },
          },
        }),
      ),
    placeholderData: (previous) => previous,
  });
  return (
    <Stack maw={960}>
      <PageHeader title="Search content" description="Pages, snippets, objects and documents, drafts included." />
      <search>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            url.set({ q: text.trim() });
          }}
        >
          <Group align="flex-end">
            <TextInput
              label="Words to find"
              value={text}
              onChange={(e) => setText(e.currentTarget.value)}
              style={{ flex: 1, minWidth: 200 }}
            />
            <Select
              label="Visibility"
              data={[
                { value: 'public', label: 'Public only' },
                { value: 'private', label: 'Not public only' },
              ]}
              value={visibility || null}
              onChange={(v) => url.set({ visibility: v ?? '' })}
              clearable
              w={180}
            />
          </Group>
        </form>
      </search>
      {!q ? (
        <EmptyState title="Type words to search for">
          Results show drafts and documents that are not public too.
        </EmptyState>
      ) : results.isPending ? (
        <LoadingState />
      ) : results.error ? (
        <ErrorState error={results.error} onRetry={() => results.refetch()} />
      ) : results.data.results.length === 0 ? (
        <EmptyState title={`Nothing found for "${q}"`} />
      ) : (
        <Stack gap="sm">
          {results.data.results.map((hit) => (
            <Paper withBorder p="md" key={`${hit.sourceType}:${hit.sourceId}:${hit.locale ?? ''}`}>
              <Group gap="xs" mb={4}>
                <Badge variant="light">{hit.sourceType}</Badge>
                {!hit.public && (
                  <Badge variant="light" color="gray">
                    not public
                  </Badge>
                )}
                {hit.locale && <Text size="xs">{hit.locale}</Text>}
              </Group>
              <Text fw={600}>{hit.title || hit.sourceId}</Text>
              <Text size="sm" lineClamp={2}>
                {hit.snippet}
              </Text>
              {hit.url && (
                <Anchor href={hit.url} size="sm" target="_blank" rel="noreferrer">
                  {hit.url}
                </Anchor>
              )}
            </Paper>
          ))}
          <Pagination
            value={url.page}
            onChange={(p) => url.set({ page: String(p) })}
            total={url.page + (results.data.hasMore ? 1 : 0)}
            aria-label="Result pages"
          />
        </Stack>
      )}
    </Stack>
  );
}
