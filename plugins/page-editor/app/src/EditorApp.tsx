import { Alert, Loader, MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider, useQuery, useQueryClient } from '@tanstack/react-query';
import { Component, type ReactNode, useEffect, useState } from 'react';
import { ApiError, contrast, SessionDialog, theme, useMe } from '../../../admin-ui/app/src/sdk/index.ts';
import {
  autosaveSettings,
  canvasHtml,
  type DocumentKind,
  LAYOUT_REGIONS,
  type LayoutRegion,
  listWebsites,
  loadDocument,
  loadWebsite,
} from './documents.ts';
import { Workspace } from './Editor.tsx';
import { EditorHome } from './EditorHome.tsx';
import { Centered, Problem, problemOf } from './Problem.tsx';
import { KINDS } from './kinds.ts';
import { KitView } from './KitView.tsx';
import { initialPreviewWebsite, PreviewWebsite, rememberInAddress } from './PreviewWebsite.tsx';
import { rememberOpened } from './recent.ts';
import { RegionSwitch } from './RegionSwitch.tsx';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});

type Target = { kind: DocumentKind | 'kits'; id: string; websiteId?: string };

/**
 * `/cms-one/editor/{pages,snippets,templates,kits}/<id>` and `/cms-one/editor/layouts/<websiteId>/<id>`
 * (a layout template belongs to its website, as in the API).
 */
function route(): Target | null {
  const path = window.location.pathname;
  const one = /^\/cms-one\/editor\/(pages|snippets|templates|kits)\/([^/]+)\/?$/.exec(path);
  if (one) return { kind: one[1] as Target['kind'], id: decodeURIComponent(one[2]) };
  const layout = /^\/cms-one\/editor\/layouts\/([^/]+)\/([^/]+)\/?$/.exec(path);
  if (layout) return { kind: 'layouts', websiteId: decodeURIComponent(layout[1]), id: decodeURIComponent(layout[2]) };
  return null;
}

/** `/cms-one/editor` and `/cms-one/editor/`: the entry (its tree of websites). */
const isEntry = () => /^\/cms-one\/editor\/?$/.test(window.location.pathname);

/** The region named by `?region=`, else the header. */
function initialRegion(): LayoutRegion {
  const asked = new URLSearchParams(window.location.search).get('region');
  return LAYOUT_REGIONS.find((r) => r === asked) ?? 'header';
}

/**
 * Everything the first screen needs is asked for at once: the session, the document, the autosave
 * settings and the canvas of the stored content; the website (for links and the theme) follows the
 * document and is not waited for. A template is drawn in the theme of a website of the user's
 * choice; a layout is edited one region at a time (switching loads the region afresh).
 */
function EditorScreen(props: { kind: DocumentKind; id: string; websiteId?: string }) {
  const what = KINDS[props.kind].label;
  const client = useQueryClient();
  const me = useMe();
  const once = { staleTime: Infinity } as const;
  const [region, setRegion] = useState<LayoutRegion | undefined>(() =>
    props.kind === 'layouts' ? initialRegion() : undefined,
  );
  const at = { websiteId: props.websiteId, region };
  const doc = useQuery({
    queryKey: ['page-editor', 'doc', props.kind, props.id, region],
    queryFn: () => loadDocument(props.kind, props.id, at),
    ...once,
  });
  const settings = useQuery({ queryKey: ['page-editor', 'autosave'], queryFn: autosaveSettings, ...once });
  const isTemplate = props.kind === 'templates';
  const websites = useQuery({ queryKey: ['page-editor', 'websites'], queryFn: listWebsites, enabled: isTemplate });
  // The website whose theme draws a template: the first drawing's, then the user's choice.
  const [firstPreview, setFirstPreview] = useState<string | null | undefined>(undefined);
  const [preview, setPreview] = useState<string | null>(null);
  useEffect(() => {
    if (!websites.data || firstPreview !== undefined) return;
    const chosen = initialPreviewWebsite(websites.data);
    setFirstPreview(chosen);
    setPreview(chosen);
  }, [websites.data, firstPreview]);
  const firstCanvas = useQuery({
    queryKey: ['page-editor', 'first-canvas', props.kind, props.id, region, firstPreview],
    queryFn: () => canvasHtml({ kind: props.kind, id: props.id, ...at }, undefined, null, firstPreview),
    enabled: !isTemplate || firstPreview !== undefined || websites.isError,
    ...once,
  });
  const websiteId = isTemplate ? null : doc.data?.websiteId;
  const website = useQuery({
    queryKey: ['page-editor', 'website', websiteId],
    queryFn: () => loadWebsite(websiteId!),
    enabled: !!websiteId,
    ...once,
  });
  const switchRegion = (next: LayoutRegion) => {
    // The other region's tree is read afresh: the save just made changed the layout's tag.
    client.removeQueries({ queryKey: ['page-editor', 'doc', 'layouts', props.id] });
    client.removeQueries({ queryKey: ['page-editor', 'first-canvas', 'layouts', props.id] });
    rememberInAddress('region', next);
    setRegion(next);
  };
  // The entry lists what this browser opened last.
  useEffect(() => {
    if (doc.data) rememberOpened({ kind: props.kind, id: props.id, websiteId: props.websiteId, title: doc.data.title });
  }, [doc.data, props.kind, props.id, props.websiteId]);
  const signedOut = me.data === null || (doc.error instanceof ApiError && doc.error.status === 401);
  useEffect(() => {
    if (signedOut)
      window.location.replace(`/sign-in?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
  }, [signedOut]);
  if (me.isError) return <Problem title="The editor could not start">{(me.error as Error).message}</Problem>;
  if (doc.isError && !signedOut) {
    const p = problemOf(doc.error, what);
    return <Problem title={p.title}>{p.text}</Problem>;
  }
  if (settings.isError && !signedOut) {
    const p = problemOf(settings.error, 'editor settings');
    return <Problem title={p.title}>{p.text}</Problem>;
  }
  if (signedOut || !me.data || !doc.data || !settings.data || firstCanvas.isLoading || !firstCanvas.isFetched)
    return (
      <Centered>
        <Loader aria-label={`Opening the ${what}`} />
      </Centered>
    );
  const previewSite = isTemplate ? (websites.data?.find((w) => w.id === preview) ?? null) : null;
  return (
    <Workspace
      key={region ?? 'document'}
      initial={doc.data}
      settings={settings.data}
      website={isTemplate ? previewSite : (website.data ?? null)}
      initialHtml={firstCanvas.data ?? null}
      previewWebsiteId={isTemplate ? preview : undefined}
      extras={(saveChanges) => ({
        bar: region && <RegionSwitch region={region} saveChanges={saveChanges} onSwitch={switchRegion} />,
        more: isTemplate && (
          <PreviewWebsite
            websites={websites.data ?? []}
            value={preview}
            onChange={(id) => {
              rememberInAddress('website', id);
              setPreview(id);
            }}
          />
        ),
      })}
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

/** The page editor application: one page, snippet, template, kit or layout per URL. */
export function EditorApp() {
  const target = route();
  return (
    <MantineProvider theme={theme} defaultColorScheme="light" cssVariablesResolver={contrast}>
      <QueryClientProvider client={queryClient}>
        <ErrorBoundary>
          {target?.kind === 'kits' ? (
            <KitView id={target.id} />
          ) : target ? (
            <EditorScreen kind={target.kind} id={target.id} websiteId={target.websiteId} />
          ) : isEntry() ? (
            <EditorHome />
          ) : (
            <Problem title="Page editor">
              There is nothing at this address. <a href="/cms-one/editor/">The editor's entry</a> lists every page,
              snippet, template and layout; the dashboard's content screens open them too ("Open in editor").
            </Problem>
          )}
        </ErrorBoundary>
        {/* An ended session: sign in again over the editor, the unsaved tree stays. */}
        <SessionDialog />
      </QueryClientProvider>
    </MantineProvider>
  );
}
