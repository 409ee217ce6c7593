import { Badge, Button, Group, Modal, Stack, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQueryClient } from '@tanstack/react-query';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, ListPage, PageHeader, showSaved, showSaveError, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { KEYS, type MailTemplate, when } from './model.ts';

function NewTemplate({ onClose }: { onClose: () => void }) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const form = useForm({
    initialValues: { key: '', name: '', subject: '', text: '' },
    validate: {
      key: (v) =>
        /^[a-z][a-z0-9-]{0,63}$/.test(v) ? null : 'Lower-case letters, digits and dashes, starting with a letter',
      name: (v) => (v.trim() ? null : 'A name for the list'),
      subject: (v) => (v.trim() ? null : 'The subject line'),
    },
  });
  return (
    <form
      noValidate
      onSubmit={form.onSubmit(async (v) => {
        try {
          const created = unwrap(
            await api.POST('/mail-templates', {
              body: { key: v.key, name: v.name.trim(), subject: v.subject, text: v.text },
            }),
          );
          showSaved(`Template ${created.name} created`);
          await client.invalidateQueries({ queryKey: KEYS.templates });
          onClose();
          await navigate(`/admin/mail/templates/${created.id}`);
        } catch (err) {
          showSaveError(err, form);
        }
      })}
    >
      <Stack>
        <TextInput
          label="Key"
          description="How the product names it: lower case, digits, dashes"
          required
          data-autofocus
          {...form.getInputProps('key')}
        />
        <TextInput label="Name" required {...form.getInputProps('name')} />
        <TextInput
          label="Subject"
          description="{{variable}} is filled in when the mail is sent"
          required
          {...form.getInputProps('subject')}
        />
        <Textarea label="Text part" autosize minRows={4} {...form.getInputProps('text')} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={form.submitting}>
            Create template
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** `/admin/mail/templates`: the templates the product and its forms send with. */
export default function TemplateList() {
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  return (
    <>
      <PageHeader
        title="Mail templates"
        description="Subject, text and HTML of the mails the product sends (password reset, form notifications, test mail)."
        actions={
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setCreating(true)}>
            New template
          </Button>
        }
      />
      <Modal
        closeButtonProps={{ 'aria-label': 'Close' }}
        opened={creating}
        onClose={() => setCreating(false)}
        title="New mail template"
        size="lg"
      >
        <NewTemplate onClose={() => setCreating(false)} />
      </Modal>
      <ListPage<MailTemplate>
        label="Mail templates"
        queryKey={KEYS.templates}
        rowKey="id"
        filters={[{ name: 'q', label: 'Name or key contains', type: 'text' }]}
        empty={{ title: 'No templates' }}
        fetchPage={async ({ page, pageSize, filters }) => {
          const { templates } = unwrap(await api.GET('/mail-templates')) as unknown as { templates: MailTemplate[] };
          const q = filters.q?.trim().toLowerCase() ?? '';
          const found = templates
            .filter((t) => !q || t.name.toLowerCase().includes(q) || t.key.includes(q))
            .sort((a, b) => a.key.localeCompare(b.key));
          return { records: found.slice((page - 1) * pageSize, page * pageSize), total: found.length };
        }}
        onRowClick={(t) => navigate(`/admin/mail/templates/${t.id}`)}
        columns={[
          {
            accessor: 'name',
            render: (t) => (
              <Link to={`/admin/mail/templates/${t.id}`} onClick={(e) => e.stopPropagation()}>
                {t.name}
              </Link>
            ),
          },
          { accessor: 'key' },
          { accessor: 'subject' },
          {
            accessor: 'html',
            title: 'Parts',
            render: (t) => (t.html ? 'HTML and text' : 'text'),
          },
          {
            accessor: 'builtIn',
            title: 'Origin',
            render: (t) =>
              t.builtIn ? (
                <Badge variant="light" color="gray">
                  built in
                </Badge>
              ) : (
                'added'
              ),
          },
          { accessor: 'updatedAt', title: 'Changed', render: (t) => when(t.updatedAt) },
        ]}
      />
    </>
  );
}
