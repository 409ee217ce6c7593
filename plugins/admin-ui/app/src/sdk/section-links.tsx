import { Button, Group } from '@mantine/core';
import { Link, useLocation } from 'react-router';

/**
 * The sections of a record that live on screens of their own (a website's settings, pages, menu),
 * as links: the current one is marked `aria-current="page"`, and each is a deep link.
 */
export function SectionLinks(props: { label: string; links: { to: string; label: string; exact?: boolean }[] }) {
  const { pathname } = useLocation();
  return (
    <Group component="nav" aria-label={props.label} gap={4} mb="md" wrap="wrap">
      {props.links.map((l) => {
        const current = l.exact ? pathname === l.to : pathname === l.to || pathname.startsWith(`${l.to}/`);
        return (
          <Button
            key={l.to}
            component={Link}
            to={l.to}
            size="compact-sm"
            variant={current ? 'filled' : 'subtle'}
            aria-current={current ? 'page' : undefined}
          >
            {l.label}
          </Button>
        );
      })}
    </Group>
  );
}
