import { Alert, Anchor, Loader, MantineProvider, Stack, Text, Title } from '@mantine/core';
import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { Component, type ReactNode, useEffect } from 'react';
import { ApiError, contrast, theme, useMe } from '../../../admin-ui/app/src/sdk/index.ts';
import { autosaveSettings, canvasHtml, type DocumentKind, loadDocument, loadWebsite } from './documents.ts';
import { Workspace } from './Editor.tsx';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});

/** `/cms-one/editor/pages/<id>` or `/cms-one/editor/snippets/<id>`. */
function route(): { kind: DocumentKind; id: string } | null {
  const match = /^\/cms-one\/editor\/(pages|snippets)\/([^/]+)\/?$/.exec(window.location.pathname);
  return match ? { kind: match[1] as DocumentKind, id: decodeURIComponent(match[2]) } : null;
}

function Centered(props: { children: ReactNode }) {
  return (
    <Stack align="center" justify="center" mih="60vh" p="md" component="main">
      {props.children}
    </Stack>
  );
}

function Problem(props: { title: string; children: ReactNode }) {
  return (
    <Centered>
      <Title order={1} size="h3">
        {props.title}
      </Title>
      <Text>{props.children}</Text>
      <Anchor href="/admin">Back to the dashboard</Anchor>
    </Centered>
  );
}

function problemOf(error: unknown, what: string): { title: string; text: string } {
  if (error instanceof ApiError && error.status === 404)
    return { title: `No such ${what}`, text: `The ${what} does not exist (any more).` };
  if (error instanceof ApiError && error.status === 403)
    return { title: 'Not allowed', text: `Your role may not open this ${what}.` };
  return { title: `The ${what} could not be opened`, text: (error as Error).message };
}

/**
 * Everything the first screen needs is asked for at once: the session, the document, the autosave
 * settings and the canvas of the stored content; the website (for links and the theme) follows the
 * document and is not waited for.
 */
function EditorScreen(props: { kind: DocumentKind; id: string }) {
  const what = props.kind === 'pages' ? 'page' : 'snippet';
  const me = useMe();
  const once = { staleTime: Infinity } as const;
  const doc = useQuery({
    queryKey: ['page-editor', 'doc', props.kind, props.id],
    queryFn: () => loadDocument(props.kind, props.id),
    ...once,
  });
  const settings = useQuery({ queryKey: ['page-editor', 'autosave'], queryFn: autosaveSettings, ...once });
  const firstCanvas = useQuery({
    queryKey: ['page-editor', 'first-canvas', props.kind, props.id],
    queryFn: () => canvasHtml(props, undefined),
    ...once,
  });
  const websiteId = doc.data?.websiteId;
  const website = useQuery({
    queryKey: ['page-editor', 'website', websiteId],
    queryFn: () => loadWebsite(websiteId!),
    enabled: !!websiteId,
    ...once,
  });
  const signedOut = me.data === null || (doc.error instanceof ApiError && doc.error.status === 401);
  useEffect(() => {
    if (signedOut)
      window.location.replace(`/sign-in?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
  }, [signedOut]);
  useEffect(() => {
    if (doc.data) document.title = `${doc.data.title} · Editor`;
  }, [doc.data]);
  if (me.isError) return <Problem title="The editor could not start">{(me.error as Error).message}</Problem>;
  if (doc.isError && !signedOut) {
    const p = problemOf(doc.error, what);
    return <Problem title={p.title}>{p.text}</Problem>;
  }
  if (settings.isError && !signedOut) {
    const p = problemOf(settings.error, 'editor settings');
    return <Problem title={p.title}>{p.text}</Problem>;
  }
  if (signedOut || !me.data || !doc.data || !settings.data || firstCanvas.isLoading)
    return (
      <Centered>
        <Loader aria-label={`Opening the ${what}`} />
      </Centered>
    );
  return (
    <Workspace
      initial={doc.data}
      settings={settings.data}
      website={website.data ?? null}
      initialHtml={firstCanvas.data ?? null}
    />
  );
}

class ErrorBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  state = { error: null as Error | null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  render() {
    if (this.state.error)
      return (
        <Centered>
          <Alert color="red" title="The editor stopped">
            {this.state.error.message}. Reload the page; changes saved before this are kept.
          </Alert>
        </Centered>
      );
    return this.props.children;
  }
}

/** The page editor application: one page or snippet per URL. */
export function EditorApp() {
  const target = route();
  return (
    <MantineProvider theme={theme} defaultColorScheme="light" cssVariablesResolver={contrast}>
      <QueryClientProvider client={queryClient}>
        <ErrorBoundary>
          {target ? (
            <EditorScreen kind={target.kind} id={target.id} />
          ) : (
            <Problem title="Page editor">
              Open a page or a snippet from the dashboard's content lists ("Open in editor").
            </Problem>
          )}
        </ErrorBoundary>
      </QueryClientProvider>
    </MantineProvider>
  );
}
