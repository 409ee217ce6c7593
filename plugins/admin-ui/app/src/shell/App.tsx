import { createTheme, type CSSVariablesResolver, MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { ApiError } from '../api/client';
import { SCREENS } from '../screens';
import { ForgotPassword, ResetPassword } from './PasswordReset';
import { Layout } from './Layout';
import { NotFound, RouteError } from './RouteError';
import { ScreenRoute } from './ScreenRoute';
import { SignIn } from './SignIn';

const theme = createTheme({
  primaryColor: 'blue',
  // Shade 8 on white (and white on shade 8) passes WCAG AA contrast; Mantine's default 6 does not.
  primaryShade: { light: 8, dark: 6 },
  // Visible focus for keyboard users on every control.
  focusRing: 'auto',
  defaultRadius: 'md',
});

/** Colours whose darkest shade is still too light for text on their own tint. */
const PALE = new Set(['yellow', 'lime', 'orange', 'green', 'teal', 'cyan']);

/**
 * WCAG AA contrast (4.5:1) in the light scheme: Mantine's dimmed text (gray 6) and the text of its
 * light variants (shade 6 on a tint: active menu entries, alerts, badges) fall short of it.
 */
const contrast: CSSVariablesResolver = (t) => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    ...Object.fromEntries(
      Object.keys(t.colors).flatMap((c) => [
        [
          `--mantine-color-${c}-light-color`,
          PALE.has(c) ? 'var(--mantine-color-dark-8)' : `var(--mantine-color-${c}-9)`,
        ],
        // Tint and hover tint light enough for that text (Mantine's hover tint, shade 2, is not).
        [`--mantine-color-${c}-light`, `var(--mantine-color-${c}-0)`],
        [`--mantine-color-${c}-light-hover`, `var(--mantine-color-${c}-1)`],
      ]),
    ),
  },
  dark: {},
});

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx does not get better by asking again.
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});

const router = createBrowserRouter([
  { path: '/', element: <Navigate to="/admin" replace /> },
  { path: '/sign-in', element: <SignIn />, errorElement: <RouteError /> },
  { path: '/forgot-password', element: <ForgotPassword />, errorElement: <RouteError /> },
  { path: '/reset-password', element: <ResetPassword />, errorElement: <RouteError /> },
  {
    path: '/admin',
    element: <Layout />,
    errorElement: <RouteError />,
    children: [
      { index: true, lazy: async () => ({ Component: (await import('./Home')).Home }), errorElement: <RouteError /> },
      ...SCREENS.map((screen) => ({
        path: screen.path,
        element: <ScreenRoute screen={screen} />,
        errorElement: <RouteError />,
      })),
      { path: '*', element: <NotFound /> },
    ],
  },
  { path: '*', element: <NotFound /> },
]);

export function App() {
  return (
    <MantineProvider theme={theme} defaultColorScheme="light" cssVariablesResolver={contrast}>
      <QueryClientProvider client={queryClient}>
        <ModalsProvider>
          <Notifications position="top-right" />
          <RouterProvider router={router} />
        </ModalsProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}
