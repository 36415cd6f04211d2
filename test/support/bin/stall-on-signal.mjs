// Preloaded into `kura serve` by a test (node --import): a stand-in for a request that holds the
// api's event loop, as the outside probe's 9.8-s sorted searches did (issue 49). On SIGUSR2 the
// main thread runs nothing else for STALL_ON_SIGNAL_MS; a worker thread, which signals never reach,
// goes on.
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  const ms = Number(process.env.STALL_ON_SIGNAL_MS ?? '6000');
  process.on('SIGUSR2', () => {
    const until = Date.now() + ms;
    while (Date.now() < until);
  });
}
