// Decisions: docs/decisions/0063-web-ui-conventions.md
/** One ticking clock for every relative time and countdown on the page. */
export const clock = $state({ now: Date.now() });

setInterval(() => {
  clock.now = Date.now();
}, 1000);
