// Decisions: docs/decisions/0062-web-ui-svelte-vite.md
// A small client router: the History API, links intercepted on click, routes matched by pattern.

export const route = $state({ path: location.pathname, query: new URLSearchParams(location.search) });

function update(): void {
  route.path = location.pathname;
  route.query = new URLSearchParams(location.search);
}

/** Goes to a path of the app; `replace` keeps the history entry (filters, pages). */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return;
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  update();
  if (!options.replace) window.scrollTo(0, 0);
}

addEventListener('popstate', update);

// same-origin links to app pages navigate without a reload; /api, /auth, /feeds and downloads do not
addEventListener('click', (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = (event.target as Element | null)?.closest?.('a');
  if (!anchor || anchor.target || anchor.hasAttribute('download') || anchor.origin !== location.origin) return;
  if (/^\/(api|auth|feeds|healthz|readyz|metrics)(\/|$)/.test(anchor.pathname)) return;
  event.preventDefault();
  navigate(anchor.pathname + anchor.search);
});

/** Matches `/archive/:id`-style patterns; answers the parameters or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const names: string[] = [];
  const regex = new RegExp(`^${pattern.replace(/:(\w+)/g, (_m, name: string) => (names.push(name), '([^/]+)'))}/?$`);
  const found = regex.exec(path);
  if (!found) return null;
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(found[i + 1] as string)]));
}
