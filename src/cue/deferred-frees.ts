// Frees sent with the next call. Freeing a value needs no answer (the engine's `free`
// always succeeds), and a module build frees about one value per call it makes: a free
// held back until the engine is called anyway saves a round trip each (a quarter of
// the calls of a fleet diff). The handles go together in one `freeMany` before the next
// other call, or once FLUSH_AT of them wait.
import type { AsyncBridge, Bridge } from './bridge.js';

/** Most frees that wait for a call. */
const FLUSH_AT = 256;

/** The engine's answer to `free`, given at once. */
const FREED = '{"result":true}';

/** The engine's calls with frees held back until the next other call (sent or blocking). */
export function deferFrees(bridge: Bridge, later: AsyncBridge): { bridge: Bridge; later: AsyncBridge } {
  let pending: number[] = [];
  const flush = () => {
    const handles = pending;
    pending = [];
    bridge('freeMany', JSON.stringify({ handles }));
  };
  return {
    bridge: (method, request) => {
      if (method === 'free') {
        pending.push((JSON.parse(request) as { handle: number }).handle);
        if (pending.length >= FLUSH_AT) flush();
        return FREED;
      }
      if (pending.length > 0) flush();
      return bridge(method, request);
    },
    later: (method, request) => {
      if (pending.length > 0) flush();
      return later(method, request);
    },
  };
}
