// Notification delivery, as both providers do it: POST the JSON body, a 2xx answer ends it, any
// other answer (or no answer) is retried on the provider's schedule. Every attempt is logged.
//
// Midtrans: https://docs.midtrans.com/reference/best-practices-to-handle-notification ("Respond
//   with the appropriate HTTP status"; a non-2xx answer is retried at 1 min, 5 min, 15 min, 30 min
//   and 1 h), https://docs.midtrans.com/docs/https-notification-webhooks; HTTP timeout 15 s.
// Xendit: https://docs.xendit.co/webhook/delivery-attempts-and-retries/ (up to six re-deliveries
//   with exponential back-off: 15 min, 45 min, 2 h, 6 h, 12 h, 24 h after the previous one).
// Both schedules are multiplied by `retryScale` (1 = real time; tests use ~1e-5: milliseconds).

const MIN = 60_000;
export const RETRY_DELAYS = {
  midtrans: [1 * MIN, 5 * MIN, 15 * MIN, 30 * MIN, 60 * MIN],
  xendit: [15 * MIN, 45 * MIN, 120 * MIN, 360 * MIN, 720 * MIN, 1440 * MIN],
};
const TIMEOUT_MS = { midtrans: 15_000, xendit: 30_000 };

export function createDeliverer({ retryScale = 1, retryDelays = RETRY_DELAYS, log = console }) {
  /** Every notification, oldest first: {id, provider, url, headers, body, attempts[], state}. */
  const notifications = [];
  /** Held notifications wait here while `held` is on. */
  const heldQueue = [];
  const timers = new Set();
  const inFlight = new Set();
  let held = false;
  let dropNext = 0;
  let closed = false;
  let seq = 0;

  function track(promise) {
    inFlight.add(promise);
    promise.finally(() => inFlight.delete(promise));
    return promise;
  }

  async function attempt(n) {
    const started = new Date().toISOString();
    let status = null;
    let error;
    try {
      const res = await fetch(n.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...n.headers },
        body: n.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS[n.provider] ?? 15_000),
      });
      status = res.status;
      await res.arrayBuffer();
    } catch (err) {
      error = err.message;
    }
    n.attempts.push({ at: started, status, ...(error ? { error } : {}) });
    if (status !== null && status >= 200 && status < 300) {
      n.state = 'delivered';
      return;
    }
    const delays = retryDelays[n.provider] ?? [];
    const retryIndex = n.attempts.length - 1;
    if (closed || retryIndex >= delays.length) {
      n.state = 'failed';
      log.warn?.(`notification ${n.id} to ${n.url} gave up after ${n.attempts.length} attempts`);
      return;
    }
    n.state = 'retrying';
    await new Promise((resolve) => {
      const entry = { resolve };
      entry.timer = setTimeout(() => {
        timers.delete(entry);
        resolve();
      }, delays[retryIndex] * retryScale);
      timers.add(entry);
    });
    if (!closed) await attempt(n);
  }

  function start(n) {
    n.state = 'sending';
    return track(attempt(n));
  }

  /** Queues one notification (body: an object, sent as JSON exactly as given). */
  function send({ provider, url, headers = {}, body, kind }) {
    const n = {
      id: `ntf-${++seq}`,
      provider,
      kind,
      url,
      headers,
      body: JSON.stringify(body),
      json: body,
      attempts: [],
      state: 'queued',
      at: new Date().toISOString(),
    };
    notifications.push(n);
    if (!url) {
      n.state = 'no-url';
      return n;
    }
    if (dropNext > 0) {
      dropNext--;
      n.state = 'dropped';
      return n;
    }
    if (held) {
      n.state = 'held';
      heldQueue.push(n);
      return n;
    }
    start(n);
    return n;
  }

  return {
    notifications,
    send,
    /** Sends a logged notification again, byte for byte (a duplicate). */
    resend(n) {
      return send({ provider: n.provider, kind: `${n.kind}:duplicate`, url: n.url, headers: n.headers, body: n.json });
    },
    hold(on) {
      held = on;
      if (!on) this.release();
    },
    release() {
      const queue = heldQueue.splice(0);
      for (const n of queue) start(n);
      return queue.length;
    },
    drop(times) {
      dropNext = times;
    },
    get held() {
      return held;
    },
    /** Resolves when nothing is being sent or waiting for a retry (held ones excepted). */
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    close() {
      closed = true;
      for (const { timer, resolve } of timers) {
        clearTimeout(timer);
        resolve();
      }
      timers.clear();
    },
  };
}
