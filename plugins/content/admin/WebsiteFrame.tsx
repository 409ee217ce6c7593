import { Anchor } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { PageHeader, QueryState, SectionLinks } from '../../admin-ui/app/src/sdk/index.ts';
import { useWebsite, type Website } from './content-api.ts';

/** The sections of a website, each its own screen (a deep link). */
export function websiteSections(id: string) {
  const base = `/admin/websites/${id}`;
  return [
    { to: base, label: 'Settings', exact: true },
    { to: `${base}/pages`, label: 'Pages' },
    { to: `${base}/menu`, label: 'Menu' },
    { to: `${base}/layouts`, label: 'Layouts' },
    { to: `${base}/themes`, label: 'Themes' },
  ];
}

/**
 * A website's screen: loads the website of the URL (`:id`), shows its name with the section as the
 * `h1`, the way back to the list and the links to its other sections.
 */
export function WebsiteFrame(props: {
  section: string;
  actions?: (site: Website) => ReactNode;
  children: (site: Website) => ReactNode;
}) {
  const { id = '' } = useParams();
  const site = useWebsite(id);
  return (
    <QueryState query={site}>
      {(s) => (
        <>
          <PageHeader
            title={props.section === 'Settings' ? s.name : `${s.name}: ${props.section}`}
            description={
              <>
                Root path <code>{s.rootPath}</code> ·{' '}
                <Anchor underline="always" component={Link} to="/admin/websites">
                  All websites
                </Anchor>
              </>
            }
            actions={props.actions?.(s)}
          />
          <SectionLinks label="Website sections" links={websiteSections(s.id)} />
          {props.children(s)}
        </>
      )}
    </QueryState>
  );
}
