import { describe, expect, it } from 'vitest';
import { renderRunFailureComment, renderRunFailureSummary } from '../../src/report/index.js';

const context = {
  commitSha: 'abcdef0123456789abcdef0123456789abcdef01',
  repository: 'acme/fleet',
  runUrl: 'https://github.com/acme/fleet/actions/runs/1',
  bundleFiles: ['bundle.cue'],
  secrets: ['s3cr3t-token-value'],
};

describe('the reports of a run that failed before any cluster', () => {
  it('say the commit could not be diffed, at which step, with the error masked and escaped', () => {
    const failure = {
      step: 'runtime',
      message: 'runtime.cue:5:4: conflicting values "a" and "b" @team [x](http://e) s3cr3t-token-value\u00ad',
    };
    const body = renderRunFailureComment(failure, context);
    expect(body.split('\n')[0]).toBe('<!-- timoni-fleet:files=bundle.cue -->');
    expect(body).toContain('Commit [<code>abcdef0</code>](https://github.com/acme/fleet/commit/');
    expect(body).toContain('could not be diffed (step <code>runtime</code>): runtime.cue&#58;5&#58;4&#58;');
    expect(body).not.toContain('s3cr3t-token-value');
    expect(body).not.toContain('@team');
    expect(body).not.toContain('[x](');
    expect(body).not.toContain('\u00ad');
    const summary = renderRunFailureSummary(failure, context, 'diff');
    expect(summary).toContain('could not be diffed (step <code>runtime</code>)');
    expect(summary).not.toContain('s3cr3t-token-value');
  });

  it('cuts a long error in the comment, not in the summary; an apply says applied', () => {
    const failure = { step: 'runtime', message: `${'x'.repeat(10_000)}END` };
    expect(renderRunFailureComment(failure, context)).not.toContain('END');
    expect(renderRunFailureComment(failure, context)).toContain('the job summary holds more');
    const summary = renderRunFailureSummary(failure, context, 'apply');
    expect(summary).toContain('END');
    expect(summary).toContain('could not be applied');
    expect(summary).toContain('Nothing was applied.');
  });
});
