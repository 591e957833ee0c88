import { describe, expect, it } from 'vitest';
import { fairAllocation, waterFill } from '../../src/report/fair-share.js';

describe('waterFill', () => {
  it('meets every demand when the total suffices', () => {
    expect(waterFill([10, 20, 30], 100)).toEqual([10, 20, 30]);
  });

  it('never cuts a small demand to feed a large one', () => {
    expect(waterFill([10, 1000, 20, 1000], 230)).toEqual([10, 100, 20, 100]);
  });

  it('divides equally among demands that all exceed the share', () => {
    expect(waterFill([500, 800, 900], 300)).toEqual([100, 100, 100]);
  });

  it('never gives more than the total', () => {
    const demands = [7, 13, 999, 4, 250, 31];
    for (const total of [0, 1, 17, 100, 500, 2000]) {
      const given = waterFill(demands, total);
      expect(given.reduce((sum, value) => sum + value, 0)).toBeLessThanOrEqual(total);
      given.forEach((value, index) => expect(value).toBeLessThanOrEqual(demands[index] ?? 0));
    }
  });
});

describe('fairAllocation', () => {
  it('gives each cluster its fair share first, then each diff within the cluster', () => {
    const allocation = fairAllocation(
      [
        { items: [{ id: 'a1', size: 5000 }, { id: 'a2', size: 50 }] },
        { items: [{ id: 'b1', size: 100 }] },
        { items: [{ id: 'c1', size: 3000 }, { id: 'c2', size: 3000 }] },
      ],
      2100,
    );
    expect(allocation.get('b1')).toBe(100);
    expect(allocation.get('a2')).toBe(50);
    expect(allocation.get('a1')).toBe(950);
    expect(allocation.get('c1')).toBe(500);
    expect(allocation.get('c2')).toBe(500);
  });
});
