/**
 * The paths this process serves, gathered from every route as it is registered (the kernel's own and
 * each plugin's). Complete once the process has mounted its routes, i.e. from the first request on:
 * ask it while handling a request or in a job, never in `setup`. A plugin that hands out paths (a
 * website's root path) asks it which first path segments the host already answers.
 */
export class MountedRoutes {
  private readonly urls = new Set<string>();
  private readonly rootSegments = new Set<string>();

  /** Called for every registered route (the kernel's `onRoute` hook). */
  add(url: string): void {
    this.urls.add(url);
    const first = url.split('/').filter(Boolean)[0];
    // A parametric or wildcard first segment (`/:id`, `/*`) names no fixed path.
    if (first && !first.startsWith(':') && !first.includes('*')) this.rootSegments.add(first.toLowerCase());
  }

  /** The first path segments of the mounted routes, lower-case, sorted (`['auth', 'cms-one', 'health', ...]`). */
  roots(): string[] {
    return [...this.rootSegments].sort();
  }

  /** Every mounted route's URL as registered (`/data-objects/:id`, `/dam-asset/*`), sorted. */
  paths(): string[] {
    return [...this.urls].sort();
  }

  /** True when a mounted route starts with the segment `segment` (compared in lower case). */
  hasRoot(segment: string): boolean {
    return this.rootSegments.has(segment.toLowerCase());
  }
}
