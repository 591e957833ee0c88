import { describe, expect, it } from 'vitest';
import { settleBounded } from '../../../src/kube/bounded.js';

describe('settleBounded', () => {
  it('keeps item order, never runs more than the limit at once, and captures failures', async () => {
    let running = 0;
    let peak = 0;
    const outcomes = await settleBounded([30, 5, 20, 1, 10, 2], 3, async (delay, index) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, delay));
      running--;
      if (index === 2) throw new Error(`item ${index} failed`);
      return delay * 10;
    });
    expect(peak).toBe(3);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual([300, 50, 'item 2 failed', 10, 100, 20]);
  });

  it('answers nothing for no items', async () => {
    expect(await settleBounded([], 4, async () => 1)).toEqual([]);
  });
});
