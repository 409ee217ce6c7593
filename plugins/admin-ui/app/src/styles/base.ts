/**
 * The stylesheets every page of the dashboard and the page editor needs before any component: the
 * layer order, then Mantine's baseline, default CSS variables and global styles (Mantine's required
 * first three). Each component's own stylesheet comes with the component (mantine-styles.ts, a build
 * plugin): never import `@mantine/core/styles.css`, which is every component's.
 */
import './layers.css';
import '@mantine/core/styles/baseline.layer.css';
import '@mantine/core/styles/default-css-variables.layer.css';
import '@mantine/core/styles/global.layer.css';
