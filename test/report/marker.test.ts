import { describe, expect, it } from 'vitest';
import { commentMarker, findMarker, isCommentOf } from '../../src/report/marker.js';
import { renderPullRequestComment } from '../../src/report/pull-request-comment.js';
import { renderRolloutComment } from '../../src/report/rollout-comment.js';
import { realisticFleet } from './fixtures.js';

describe('comment marker', () => {
  it('is a hidden HTML comment', () => {
    expect(commentMarker('apps')).toMatch(/^<!-- .* -->$/);
  });

  it.each(['apps', 'my-bundle', 'odd --> name', 'ünïcode bündle', 'with space'])('round-trips the bundle name %j', (name) => {
    const body = `${commentMarker(name)}\n### something\n`;
    expect(findMarker(body)).toEqual({ bundle: name });
    expect(isCommentOf(body, name)).toBe(true);
    expect(isCommentOf(body, `${name}x`)).toBe(false);
  });

  it('cannot be closed early by the bundle name', () => {
    expect(commentMarker('a --> b').indexOf('-->')).toBe(commentMarker('a --> b').length - 3);
  });

  it('finds nothing in a body without a marker or with a malformed one', () => {
    expect(findMarker('just a comment')).toBeNull();
    expect(findMarker('<!-- timoni-fleet:bundle=%E0%A4%A -->')).toBeNull();
  });

  it('is kept by the rollout comment, so the PR comment is found again on merge', () => {
    const plan = renderPullRequestComment(realisticFleet(), { commitSha: 'abc1234', secrets: [] });
    const rollout = renderRolloutComment(realisticFleet('apply'), { commitSha: 'def5678', secrets: [] });
    expect(findMarker(plan)).toEqual({ bundle: 'apps' });
    expect(findMarker(rollout)).toEqual({ bundle: 'apps' });
    expect(plan.startsWith(commentMarker('apps'))).toBe(true);
    expect(rollout.startsWith(commentMarker('apps'))).toBe(true);
  });
});
