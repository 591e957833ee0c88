import { describe, expect, it } from 'vitest';
import { formatDuration, formatLimit, parseDuration } from '../src/duration.js';

describe('parsing durations as Go writes them', () => {
  it.each([
    ['5m', 300_000],
    ['90s', 90_000],
    ['1h30m', 5_400_000],
    ['1m30.5s', 90_500],
    ['500ms', 500],
    ['30', 30_000],
  ])('%s is %d ms', (text, milliseconds) => {
    expect(parseDuration(text)).toBe(milliseconds);
  });

  it.each(['', '5 minutes', '1x', 'm5', '5m junk'])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('formatting durations for people', () => {
  it.each([
    [850, '850 ms'],
    [12_345, '12.3 s'],
    [125_000, '2 min 05 s'],
    [3_720_000, '1 h 02 min'],
    [-1, '–'],
  ])('%d ms reads %s', (milliseconds, text) => {
    expect(formatDuration(milliseconds)).toBe(text);
  });
});

describe('formatting a time limit in the notation --timeout takes', () => {
  it.each([
    [300_000, '5m'],
    [3_000, '3s'],
    [90_000, '1m30s'],
    [90_500, '1m30.5s'],
    [5_400_000, '1h30m'],
    [3_600_000, '1h'],
    [2_500, '2.5s'],
    [500, '500ms'],
  ])('%d ms reads %s', (milliseconds, text) => {
    expect(formatLimit(milliseconds)).toBe(text);
    expect(parseDuration(text)).toBe(milliseconds);
  });
});
