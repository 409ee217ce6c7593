// Mantine's base stylesheets come with its Box, which every component is drawn with (the dashboard
// build's mantine-styles.ts): nothing to import here.
import './editor.css';
import { createRoot } from 'react-dom/client';
import { EditorApp } from './EditorApp.tsx';

// After a deploy, a page still open asks for chunks of the previous build: reload once.
window.addEventListener('vite:preloadError', (event) => {
  if (sessionStorage.getItem('cms:editor-reloaded-for-chunks')) return;
  sessionStorage.setItem('cms:editor-reloaded-for-chunks', '1');
  event.preventDefault();
  window.location.reload();
});

createRoot(document.getElementById('root')!).render(<EditorApp />);
