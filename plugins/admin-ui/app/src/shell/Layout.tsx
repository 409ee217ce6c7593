import {
  AppShell,
  Avatar,
  Burger,
  Group,
  Menu,
  NavLink,
  ScrollArea,
  Text,
  UnstyledButton,
  VisuallyHidden,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { IconChevronDown, IconHome, IconLogout, IconShieldLock } from '@tabler/icons-react';
import { useEffect } from 'react';
import { Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { CommandPalette } from './CommandPalette';
import { FORBIDDEN_EVENT } from '../api/client';
import { menuFor } from '../screens';
import { ErrorState, LoadingState } from '../sdk/page';
import { SessionDialog } from '../sdk/session-dialog';
import { confirmLeavingUnsaved, LeaveGuard } from './LeaveGuard';
import { ME_KEY, type Me, useMe, useSignOut } from './session';

function UserMenu({ me }: { me: Me }) {
  const signOut = useSignOut();
  const navigate = useNavigate();
  const initials = (me.displayName || me.email).slice(0, 2).toUpperCase();
  return (
    <Menu position="bottom-end" withArrow>
      <Menu.Target>
        <UnstyledButton>
          <Group gap="xs" wrap="nowrap">
            <VisuallyHidden>Account menu:</VisuallyHidden>
            <Avatar radius="xl" size="sm" color="blue" aria-hidden>
              {initials}
            </Avatar>
            <Text size="sm" visibleFrom="sm" truncate maw={200}>
              {me.displayName || me.email}
            </Text>
            <IconChevronDown size={14} aria-hidden />
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>{me.email}</Menu.Label>
        <Menu.Item leftSection={<IconShieldLock size={16} />} component={Link} to="/admin/account/security">
          Two-factor sign-in
        </Menu.Item>
        <Menu.Item
          leftSection={<IconLogout size={16} />}
          onClick={async () => {
            if (!(await confirmLeavingUnsaved())) return;
            await signOut();
            await navigate('/sign-in', { replace: true });
          }}
        >
          Sign out
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

function Navigation({ me, onNavigate }: { me: Me; onNavigate: () => void }) {
  const location = useLocation();
  const groups = menuFor(me.permissions);
  const active = (path: string) => location.pathname === path || location.pathname.startsWith(`${path}/`);
  return (
    <nav aria-label="Main">
      <NavLink
        component={Link}
        to="/admin"
        label="Home"
        leftSection={<IconHome size={18} />}
        active={location.pathname === '/admin'}
        onClick={onNavigate}
      />
      {groups.map(({ group, screens }) => (
        <div key={group}>
          <Text size="xs" fw={700} c="dimmed" tt="uppercase" mt="md" mb={4} px="sm" component="h2">
            {group}
          </Text>
          {screens.map((s) => {
            const Icon = s.menu?.icon;
            const to = `/admin/${s.path}`;
            return (
              <NavLink
                key={s.id}
                component={Link}
                to={to}
                label={s.menu?.label ?? s.label}
                leftSection={Icon ? <Icon size={18} /> : undefined}
                active={active(to)}
                onClick={onNavigate}
              />
            );
          })}
        </div>
      ))}
    </nav>
  );
}

/**
 * The signed-in frame around every screen: header with the user menu, the menu of the screens the
 * user's keys open, and the screen. Without a session it sends the browser to the sign-in page and
 * back here afterwards; a session that ends while a screen is open gets the sign-in dialog over it
 * instead (`SessionDialog`), and an edited form is guarded against leaving (`LeaveGuard`).
 */
export function Layout() {
  const me = useMe();
  const [opened, { toggle, close }] = useDisclosure();
  const location = useLocation();
  const client = useQueryClient();

  useEffect(() => {
    // A 403 may mean the user's roles changed: ask again what they hold.
    const forbidden = () => void client.invalidateQueries({ queryKey: ME_KEY });
    window.addEventListener(FORBIDDEN_EVENT, forbidden);
    return () => window.removeEventListener(FORBIDDEN_EVENT, forbidden);
  }, [client]);

  if (me.isPending) return <LoadingState label="Loading your account" />;
  if (me.error)
    return (
      <main style={{ padding: 24 }}>
        <h1>Could not load your account</h1>
        <ErrorState error={me.error} onRetry={() => me.refetch()} />
      </main>
    );
  if (!me.data) {
    const next = location.pathname + location.search;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 260, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle the menu" />
            <Text fw={700} component={Link} to="/admin" style={{ textDecoration: 'none', color: 'inherit' }}>
              Content platform
            </Text>
          </Group>
          <Group gap="sm" wrap="nowrap">
            <CommandPalette me={me.data} />
            <UserMenu me={me.data} />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs">
        <ScrollArea>
          <Navigation me={me.data} onNavigate={close} />
        </ScrollArea>
      </AppShell.Navbar>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
      <LeaveGuard />
      <SessionDialog />
    </AppShell>
  );
}
