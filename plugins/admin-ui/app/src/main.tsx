import './styles/base.ts';
// The shell's notifications and command palette are on every screen.
import '@mantine/notifications/styles.layer.css';
import '@mantine/spotlight/styles.layer.css';
import './shell/contrast.css';
import { createRoot } from 'react-dom/client';
import { App } from './shell/App';

// After a deploy, a page still open asks for chunks of the previous build: reload once to get the
// new index.html instead of showing a broken screen.
window.addEventListener('vite:preloadError', (event) => {
  if (sessionStorage.getItem('cms:reloaded-for-chunks')) return;
  sessionStorage.setItem('cms:reloaded-for-chunks', '1');
  event.preventDefault();
  window.location.reload();
});
window.addEventListener('load', () => setTimeout(() => sessionStorage.removeItem('cms:reloaded-for-chunks'), 10_000));

createRoot(document.getElementById('root')!).render(<App />);
