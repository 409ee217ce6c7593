import { MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { ApiError } from '../api/client';
import { contrast, theme } from '../sdk/theme';
import { SCREENS } from '../screens';
import { ForgotPassword, ResetPassword } from './PasswordReset';
import { Layout } from './Layout';
import { NotFound, RouteError } from './RouteError';
import { ScreenRoute } from './ScreenRoute';
import { SignIn } from './SignIn';

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
          {/* One region; at most three at a time, the rest wait their turn (sdk/forms.ts drops repeats). */}
          <Notifications position="top-right" limit={3} />
          <RouterProvider router={router} />
        </ModalsProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}
