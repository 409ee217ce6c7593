import { Button, Group, Input, TextInput } from '@mantine/core';
import { EditorContent, useEditor, useEditorState } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { useEffect, useRef, useState } from 'react';
import { fromRichDoc, type RichDoc, toRichDoc } from './richtext.ts';
import type { ContentNode } from './tree.ts';

/**
 * A block's formatted text in TipTap (ProseMirror), loaded only when a block is edited as rich
 * text (its own chunk): bold, italic, underline, code and links. Each change goes back to the tree
 * as inline nodes (`richtext.ts`); a change from elsewhere (undo, a restore) replaces the editor's
 * content.
 */
export default function RichText(props: { node: ContentNode; onChange(node: ContentNode): void }) {
  // The block as this editor last sent it: a node that differs came from elsewhere (undo, restore).
  const sent = useRef<string>(JSON.stringify(props.node));
  const [href, setHref] = useState('');
  const onChange = useRef(props.onChange);
  onChange.current = props.onChange;
  const nodeRef = useRef(props.node);
  nodeRef.current = props.node;
  const editor = useEditor({
    extensions: [
      StarterKit.configure({
        heading: false,
        blockquote: false,
        bulletList: false,
        orderedList: false,
        listItem: false,
        codeBlock: false,
        horizontalRule: false,
        link: { openOnClick: false, autolink: false, protocols: ['http', 'https', 'mailto', 'tel'] },
      }),
    ],
    content: toRichDoc(props.node),
    editorProps: {
      attributes: { 'aria-label': 'Formatted text', 'aria-multiline': 'true', role: 'textbox', class: 'cms-richtext' },
    },
    onUpdate: ({ editor: e }) => {
      const next = fromRichDoc(nodeRef.current, e.getJSON() as RichDoc);
      sent.current = JSON.stringify(next);
      onChange.current(next);
    },
  });
  const active = useEditorState({
    editor,
    selector: ({ editor: e }) => ({
      bold: e?.isActive('bold') ?? false,
      italic: e?.isActive('italic') ?? false,
      underline: e?.isActive('underline') ?? false,
      code: e?.isActive('code') ?? false,
      link: e?.isActive('link') ?? false,
    }),
  });
  useEffect(() => {
    if (!editor || JSON.stringify(props.node) === sent.current) return;
    sent.current = JSON.stringify(props.node);
    editor.commands.setContent(toRichDoc(props.node), { emitUpdate: false });
  }, [editor, props.node]);
  if (!editor) return null;
  const mark = (name: 'bold' | 'italic' | 'underline' | 'code', label: string) => (
    <Button
      size="compact-xs"
      variant={active?.[name] ? 'filled' : 'default'}
      aria-pressed={active?.[name] ?? false}
      onClick={() => editor.chain().focus().toggleMark(name).run()}
    >
      {label}
    </Button>
  );
  return (
    <Input.Wrapper label="Formatted text" description="Select words, then a format">
      <Group gap={4} my={4} role="toolbar" aria-label="Text formats">
        {mark('bold', 'Bold')}
        {mark('italic', 'Italic')}
        {mark('underline', 'Underline')}
        {mark('code', 'Code')}
      </Group>
      <EditorContent editor={editor} />
      <Group gap={4} mt={4} align="flex-end" wrap="nowrap">
        <TextInput
          size="xs"
          label="Link address for the selected words"
          value={href}
          onChange={(e) => setHref(e.currentTarget.value)}
          style={{ flex: 1 }}
        />
        <Button
          size="compact-xs"
          disabled={!href}
          onClick={() => editor.chain().focus().extendMarkRange('link').setLink({ href }).run()}
        >
          Set link
        </Button>
        <Button
          size="compact-xs"
          variant="default"
          disabled={!active?.link}
          onClick={() => editor.chain().focus().extendMarkRange('link').unsetLink().run()}
        >
          Remove link
        </Button>
      </Group>
    </Input.Wrapper>
  );
}
