import { Anchor, Button, Grid, Group, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import {
  ApiError,
  api,
  confirmDestructive,
  EmptyState,
  ErrorState,
  LoadingState,
  PageHeader,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { getObject, translationsOf, useClasses, useComponents } from './data-api.ts';
import { FieldInput } from './FieldInput.tsx';
import { type DataClass, type DataComponent, type DataObject, keys, titleOf } from './model.ts';
import { DraftPanel } from './ObjectDraft.tsx';
import { PreviewLinks, StatusPanel } from './ObjectSide.tsx';

/** The edit form of one language row, generated from the class's fields. */
function ObjectForm(props: {
  cls: DataClass;
  components: DataComponent[];
  object?: DataObject;
  locale: string;
  translationGroupId?: string;
  /** Several languages exist: shared fields say so. */
  multilingual: boolean;
  heading?: string;
}) {
  const { cls, object } = props;
  const can = useCan();
  const ro = !can('data_objects:write');
  const navigate = useNavigate();
  const client = useQueryClient();
  const [key, setKey] = useState(object?.key ?? '');
  const [values, setValues] = useState<Record<string, unknown>>(object?.attributes ?? {});
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setKey(object?.key ?? '');
    setValues(object?.attributes ?? {});
  }, [object]);
  const errorAt = (path: string) => (error?.field === `attributes.${path}` ? error.message : undefined);
  const save = async () => {
    setBusy(true);
    setError(undefined);
    try {
      if (object) {
        // Fields emptied here are cleared (null); the others are sent as they are.
        const attributes = Object.fromEntries(
          [...new Set([...Object.keys(object.attributes), ...Object.keys(values)])].map((n) => [n, values[n] ?? null]),
        );
        unwrap<unknown>(
          await api.PATCH('/data-objects/{id}', {
            params: { path: { id: object.id } },
            body: { key: key || null, attributes },
          }),
        );
        showSaved('Saved');
        await client.invalidateQueries({ queryKey: keys.objects });
      } else {
        const attributes = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null && v !== undefined));
        const created = unwrap<unknown>(
          await api.POST('/data-objects', {
            body: {
              classId: cls.id,
              locale: props.locale,
              ...(key ? { key } : {}),
              ...(props.translationGroupId ? { translationGroupId: props.translationGroupId } : {}),
              attributes,
            },
          }),
        ) as DataObject;
        showSaved('Created');
        await client.invalidateQueries({ queryKey: keys.objects });
        await navigate(`/admin/data/objects/${created.id}`, { replace: true });
      }
    } catch (err) {
      if (err instanceof ApiError) setError(err);
      showSaveError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      noValidate
      aria-label={props.heading ?? `Object in ${props.locale}`}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <Stack gap="sm">
        {props.heading && (
          <Title order={2} size="h4">
            {props.heading}
          </Title>
        )}
        <TextInput
          label="Key"
          description="Optional; unique per language; no spaces or /"
          readOnly={ro}
          value={key}
          error={error?.field === 'key' ? error.message : undefined}
          onChange={(e) => setKey(e.currentTarget.value)}
        />
        {cls.fields.map((f) => (
          <FieldInput
            key={f.name}
            field={f}
            value={values[f.name]}
            components={props.components}
            readOnly={ro}
            description={props.multilingual && !f.localized ? 'Shared by every language' : undefined}
            error={errorAt(f.name)}
            errorAt={errorAt}
            onChange={(v) => setValues((current) => ({ ...current, [f.name]: v }))}
          />
        ))}
        {error && !error.field?.startsWith('attributes.') && error.field !== 'key' && (
          <Text c="red.8" size="sm" role="alert">
            {error.message}
          </Text>
        )}
        {!ro && (
          <Group>
            <Button type="submit" loading={busy}>
              {object ? 'Save' : 'Create the object'}
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}

/** The record's languages: open one, compare one side by side, add one. */
function Languages(props: {
  object: DataObject;
  translations: DataObject[];
  compare: string;
  onCompare: (locale: string) => void;
}) {
  const can = useCan();
  const [locale, setLocale] = useState('');
  const others = props.translations.filter((t) => t.id !== props.object.id);
  return (
    <Paper withBorder p="md">
      <Title order={2} size="h4" mb="xs">
        Languages
      </Title>
      <Stack gap="sm">
        <Text size="sm">
          {props.translations.map((t, i) => (
            <span key={t.id}>
              {i > 0 && ', '}
              {t.id === props.object.id ? (
                <strong>{t.locale}</strong>
              ) : (
                <Anchor underline="always" component={Link} to={`/admin/data/objects/${t.id}`}>
                  {t.locale}
                </Anchor>
              )}
            </span>
          ))}
        </Text>
        {others.length > 0 && (
          <Select
            label="Side by side with"
            data={others.map((t) => t.locale)}
            value={props.compare || null}
            onChange={(v) => props.onCompare(v ?? '')}
            clearable
          />
        )}
        {can('data_objects:write') && (
          <Group align="flex-end" gap="xs">
            <TextInput
              label="Add a language"
              placeholder="de"
              value={locale}
              onChange={(e) => setLocale(e.currentTarget.value.trim())}
              w={120}
            />
            <Button variant="light" disabled={!locale} onClick={() => props.onCompare(`new:${locale}`)}>
              Add
            </Button>
          </Group>
        )}
      </Stack>
    </Paper>
  );
}

function ExistingObject({ id }: { id: string }) {
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const can = useCan();
  const classes = useClasses();
  const components = useComponents();
  const object = useQuery({ queryKey: keys.object(id), queryFn: () => getObject(id) });
  const translations = useQuery({
    queryKey: [...keys.object(id), 'translations'],
    queryFn: () => translationsOf(id),
  });
  if (object.isPending || classes.isPending) return <LoadingState />;
  if (object.error) return <ErrorState error={object.error} onRetry={() => object.refetch()} />;
  if (classes.error) return <ErrorState error={classes.error} onRetry={() => classes.refetch()} />;
  const o = object.data;
  const cls = classes.data.find((c) => c.id === o.classId);
  if (!cls) return <EmptyState title="The class of this object is gone" />;
  const rows = translations.data ?? [o];
  const compare = params.get('compare') ?? '';
  const other = compare.startsWith('new:') ? undefined : rows.find((t) => t.locale === compare && t.id !== o.id);
  const newLocale = compare.startsWith('new:') ? compare.slice(4) : '';
  const side = Boolean(other || newLocale);
  const remove = async () => {
    const ok = await confirmDestructive({
      title: `Delete ${titleOf(cls, o)} (${o.locale})?`,
      removes: `the ${o.locale} version of this object and its preview links${
        rows.length > 1
          ? `; the other languages (${rows
              .filter((t) => t.id !== o.id)
              .map((t) => t.locale)
              .join(', ')}) stay`
          : ''
      }.`,
      confirmLabel: 'Delete the object',
    });
    if (!ok) return;
    try {
      unwrap<unknown>(await api.DELETE('/data-objects/{id}', { params: { path: { id: o.id } } }));
      showSaved('Deleted');
      await client.invalidateQueries({ queryKey: keys.objects });
      await navigate(`/admin/data/objects?class=${encodeURIComponent(cls.name)}`);
    } catch (err) {
      showSaveError(err);
    }
  };
  const form = (
    <ObjectForm
      cls={cls}
      components={components.data ?? []}
      object={o}
      locale={o.locale}
      multilingual={rows.length > 1}
      heading={side ? `Language: ${o.locale}` : undefined}
    />
  );
  return (
    <>
      <PageHeader
        title={titleOf(cls, o)}
        description={
          <>
            <Anchor
              underline="always"
              component={Link}
              to={`/admin/data/objects?class=${encodeURIComponent(cls.name)}`}
            >
              {cls.label || cls.name}
            </Anchor>{' '}
            · {o.locale} · updated {new Date(o.updatedAt).toLocaleString('en-GB')}
          </>
        }
        actions={
          can('data_objects:write') && (
            <Button color="red" variant="outline" onClick={remove}>
              Delete
            </Button>
          )
        }
      />
      <Grid>
        <Grid.Col span={{ base: 12, md: side ? 8 : 8 }}>
          {side ? (
            <Grid>
              <Grid.Col span={{ base: 12, lg: 6 }}>{form}</Grid.Col>
              <Grid.Col span={{ base: 12, lg: 6 }}>
                <ObjectForm
                  key={other?.id ?? compare}
                  cls={cls}
                  components={components.data ?? []}
                  object={other}
                  locale={other?.locale ?? newLocale}
                  translationGroupId={o.translationGroupId}
                  multilingual
                  heading={other ? `Language: ${other.locale}` : `New language: ${newLocale}`}
                />
              </Grid.Col>
            </Grid>
          ) : (
            form
          )}
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Stack>
            <StatusPanel object={o} />
            <DraftPanel object={o} />
            <Languages
              object={o}
              translations={rows}
              compare={compare}
              onCompare={(c) => setParams(c ? { compare: c } : {})}
            />
            {can('objects:publish') && <PreviewLinks object={o} />}
          </Stack>
        </Grid.Col>
      </Grid>
    </>
  );
}

/** `/admin/data/objects/:id` (and `/new?class=<name>`): the object's form, status, languages and preview links. */
export default function ObjectEdit() {
  const { id = 'new' } = useParams();
  const [params] = useSearchParams();
  const classes = useClasses();
  const components = useComponents();
  if (id !== 'new') return <ExistingObject key={id} id={id} />;
  if (classes.isPending) return <LoadingState />;
  if (classes.error) return <ErrorState error={classes.error} onRetry={() => classes.refetch()} />;
  const cls = classes.data.find((c) => c.name === params.get('class'));
  return (
    <>
      <PageHeader
        title={cls ? `New ${cls.label || cls.name}` : 'New object'}
        description={
          <Anchor
            underline="always"
            component={Link}
            to={`/admin/data/objects${cls ? `?class=${encodeURIComponent(cls.name)}` : ''}`}
          >
            Back to the list
          </Anchor>
        }
      />
      {cls ? (
        <Grid>
          <Grid.Col span={{ base: 12, md: 8 }}>
            <ObjectForm
              cls={cls}
              components={components.data ?? []}
              locale={params.get('locale') || 'en'}
              multilingual={false}
            />
          </Grid.Col>
        </Grid>
      ) : (
        <EmptyState title="No such class">Open the object list and choose a class first.</EmptyState>
      )}
    </>
  );
}
