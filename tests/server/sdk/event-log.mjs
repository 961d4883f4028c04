// The event stream of an SDK client (v1 or v2), read in the background for a whole script: `seen` holds every
// event so far, `waitFor(test, what, from)` resolves with the first event from index `from` on that passes
// `test` (failing after WAIT_MS), and `ofSession(id, type)` is the usual test.
export const WAIT_MS = 30000;

export async function followEvents(client) {
  const seen = [];
  const waiters = [];
  const subscription = await client.event.subscribe();
  (async () => {
    for await (const event of subscription.stream) {
      seen.push(event);
      for (const waiter of [...waiters]) if (waiter.test(event)) waiter.resolve(event);
    }
  })();
  function waitFor(test, what, from = 0) {
    const early = seen.slice(from).find(test);
    if (early) return Promise.resolve(early);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${what} event within ${WAIT_MS} ms`)), WAIT_MS);
      waiters.push({ test, resolve: (e) => (clearTimeout(timer), resolve(e)) });
    });
  }
  return { seen, waitFor };
}

export const ofSession = (id, type) => (e) => e.type === type && e.properties.sessionID === id;
