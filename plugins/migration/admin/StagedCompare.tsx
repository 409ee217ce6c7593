import { Modal, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, QueryState, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import type { StagedPage } from './model.ts';
import { NodeOutline } from './NodeOutline.tsx';

interface Side {
  title: string;
  seo: Record<string, unknown>;
  content?: unknown;
}

function Column(props: { heading: string; side: Side | null }) {
  const { side } = props;
  const seo = (key: string) => (typeof side?.seo[key] === 'string' ? (side.seo[key] as string) : '—');
  return (
    <Stack gap="xs">
      <Title order={3} size="h5">
        {props.heading}
      </Title>
      {side ? (
        <>
          <Text size="sm">Title: {side.title}</Text>
          <Text size="sm">SEO title: {seo('title')}</Text>
          <Text size="sm">SEO description: {seo('description')}</Text>
          <NodeOutline tree={side.content} label={`Content: ${props.heading}`} />
        </>
      ) : (
        <Text size="sm">No page at this path yet: promoting creates it.</Text>
      )}
    </Stack>
  );
}

/** The staged page and the page at its path now (if any), side by side. */
async function loadBoth(staged: StagedPage) {
  const full = unwrap(await api.GET('/cms-one/pages/staged/{id}', { params: { path: { id: staged.id } } }));
  const pages = unwrap(
    await api.GET('/cms-one/pages', { params: { query: { websiteId: staged.websiteId, limit: 1000, offset: 0 } } }),
  );
  const match = pages.find((p) => p.locale === staged.locale && p.path === staged.path);
  const current = match ? unwrap(await api.GET('/cms-one/pages/{id}', { params: { path: { id: match.id } } })) : null;
  return { staged: full, current };
}

export function StagedCompare(props: { page: StagedPage | undefined; onClose: () => void }) {
  const { page } = props;
  const query = useQuery({
    queryKey: ['migration', 'staged-compare', page?.id],
    queryFn: () => loadBoth(page!),
    enabled: !!page,
  });
  return (
    <Modal
      opened={!!page}
      onClose={props.onClose}
      title={page ? `Compare ${page.path}` : ''}
      size="xl"
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <QueryState query={query}>
        {({ staged, current }) => (
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <Column heading="Staged (from Pimcore)" side={staged} />
            <Column heading="Current page" side={current} />
          </SimpleGrid>
        )}
      </QueryState>
    </Modal>
  );
}
