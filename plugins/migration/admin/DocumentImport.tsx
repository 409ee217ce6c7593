import { Stack } from '@mantine/core';
import { Section, useUrlState } from '../../admin-ui/app/src/sdk/index.ts';
import { DocumentImportForm } from './DocumentImportForm.tsx';
import { SourceFrame } from './SourceFrame.tsx';
import { StagedPages } from './StagedPages.tsx';

/** `/admin/migration/:id/documents`: documents into a website (`?website=`), and its staged pages. */
export default function DocumentImport() {
  const { values, set } = useUrlState(['website']);
  return (
    <SourceFrame step="documents">
      {(source) => (
        <Stack>
          <Section title="Import documents">
            <DocumentImportForm source={source} websiteId={values.website} onWebsite={(website) => set({ website })} />
          </Section>
          {values.website && <StagedPages source={source} websiteId={values.website} />}
        </Stack>
      )}
    </SourceFrame>
  );
}
