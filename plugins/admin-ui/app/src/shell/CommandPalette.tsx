import { Button, Kbd, VisuallyHidden } from '@mantine/core';
import { Spotlight, type SpotlightActionData, spotlight } from '@mantine/spotlight';
import { IconHome, IconLogout, IconSearch } from '@tabler/icons-react';
import { type CSSProperties, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { SCREENS } from '../screens';
import { mayOpen } from '../sdk/screens';
import { confirmLeavingUnsaved } from './LeaveGuard';
import { type Me, useSignOut } from './session';

/**
 * The command palette (Ctrl+K / ⌘K, or the header button): jump to any screen the user may open,
 * search content for the words typed, sign out.
 */
export function CommandPalette({ me }: { me: Me }) {
  const navigate = useNavigate();
  const signOut = useSignOut();
  const [query, setQuery] = useState('');
  const screens = useMemo<SpotlightActionData[]>(
    () => [
      {
        id: 'home',
        label: 'Home',
        description: 'The dashboard',
        onClick: () => navigate('/admin'),
        leftSection: <IconHome size={18} />,
      },
      ...SCREENS.filter((s) => s.menu && mayOpen(s, me.permissions)).map((s) => {
        const Icon = s.menu?.icon;
        return {
          id: s.id,
          label: s.menu?.label ?? s.label,
          description: s.menu?.group,
          keywords: [s.label, s.path],
          leftSection: Icon ? <Icon size={18} /> : undefined,
          onClick: () => void navigate(`/admin/${s.path}`),
        };
      }),
      {
        id: 'sign-out',
        label: 'Sign out',
        leftSection: <IconLogout size={18} />,
        onClick: async () => {
          if (!(await confirmLeavingUnsaved())) return;
          await signOut();
          await navigate('/sign-in', { replace: true });
        },
      },
    ],
    [me.permissions, navigate, signOut],
  );
  const canSearch = me.permissions.includes('objects:read') && query.trim().length > 0;
  const actions = canSearch
    ? [
        ...screens,
        {
          id: 'search-content',
          label: `Search content for "${query.trim()}"`,
          leftSection: <IconSearch size={18} />,
          onClick: () => void navigate(`/admin/search?q=${encodeURIComponent(query.trim())}`),
        },
      ]
    : screens;
  return (
    <>
      <Button
        variant="default"
        size="xs"
        leftSection={<IconSearch size={14} aria-hidden />}
        rightSection={<Kbd size="xs">Ctrl K</Kbd>}
        onClick={() => spotlight.open()}
        visibleFrom="sm"
      >
        Jump to
      </Button>
      <Button variant="default" size="xs" onClick={() => spotlight.open()} hiddenFrom="sm" aria-label="Jump to">
        <IconSearch size={16} aria-hidden />
      </Button>
      <Spotlight
        actions={actions}
        query={query}
        onQueryChange={setQuery}
        // The search action always stays: it matches whatever was typed.
        filter={(q, list) =>
          list.filter(
            (a) =>
              'id' in a &&
              (a.id === 'search-content' ||
                [a.label, a.description, ...(Array.isArray(a.keywords) ? a.keywords : [])]
                  .join(' ')
                  .toLowerCase()
                  .includes(q.trim().toLowerCase())),
          )
        }
        nothingFound="No screen matches"
        // The dialog's name (axe: aria-dialog-name), read by screen readers and not shown: the
        // search field says the same to the eye.
        title={<VisuallyHidden>Command palette</VisuallyHidden>}
        // Mantine fades the selected action's description to 70 %: under 4.5:1 on its background.
        styles={{
          action: { '--action-description-opacity': '1' } as CSSProperties,
          header: { minHeight: 0, padding: 0 },
        }}
        highlightQuery
        shortcut={['mod + K']}
        searchProps={{
          placeholder: 'Jump to a screen or search content',
          'aria-label': 'Jump to a screen or search content',
        }}
      />
    </>
  );
}
