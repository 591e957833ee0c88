import { describe, expect, it } from 'vitest';
import { type PrintedLine, processLog } from './runner-log.js';

const out = (...texts: string[]): PrintedLine[] => texts.map((text) => ({ stream: 'stdout', text }));

describe('processLog', () => {
  it('prints lines between ::stop-commands:: and the resume token as they are', () => {
    const result = processLog(
      out(
        '::stop-commands::pause-1',
        '::error::not a command',
        '::add-mask::not-a-mask',
        '::pause-1::',
        '::error::a command again',
      ),
      {
        debug: false,
        secrets: [],
      },
    );
    expect(result.log).toBe('::error::not a command\n::add-mask::not-a-mask\n##[error]a command again');
    expect(result.commands.map((c) => c.command)).toEqual(['stop-commands', 'error']);
    expect(result.masked).toEqual([]);
  });

  it('stops at a ::stop-commands:: after U+0085 or in the ##[ form, and resumes only on the token, in any case', () => {
    const result = processLog(
      out(
        '\u0085::stop-commands::Pause-2',
        '::add-mask::hidden',
        '::error::x ##[pause-2]',
        'text ##[PAUSE-2]',
        '::add-mask::shown',
      ),
      { debug: false, secrets: [] },
    );
    expect(result.commands.map((c) => c.command)).toEqual(['stop-commands', 'add-mask']);
    expect(result.log).toBe('::add-mask::hidden\n::error::x ##[pause-2]');
  });

  it('refuses the disabled set-env and add-path commands, failing the step', () => {
    const result = processLog(out('::set-env name=A::1', '::add-path::/x'), { debug: false, secrets: [] });
    expect(result.errors).toHaveLength(2);
    expect(result.errors[0]).toMatch(/^The `set-env` command is disabled/);
    expect(result.log).toContain("##[error]Unable to process command '::add-path::/x' successfully.");
  });

  it('masks from the moment a value is registered, never before', () => {
    const result = processLog(out('early s3cret', '::add-mask::s3cret', 'late s3cret', '::warning::about s3cret'), {
      debug: false,
      secrets: [],
    });
    expect(result.log).toBe('early s3cret\nlate ***\n##[warning]about ***');
  });

  it('masks job secrets and their encoded forms from the start', () => {
    const secret = 'p@ss word/1';
    const result = processLog(
      out(`raw ${secret}`, `uri ${encodeURIComponent(secret)}`, `b64 ${Buffer.from(secret).toString('base64')}`),
      {
        debug: false,
        secrets: [secret],
      },
    );
    expect(result.log).toBe('raw ***\nuri ***\nb64 ***');
  });

  it('ignores empty and blank masks', () => {
    const result = processLog(out('::add-mask::', '::add-mask::   ', 'a b'), { debug: false, secrets: [''] });
    expect(result.masked).toEqual([]);
    expect(result.log).toBe('a b');
  });

  it('keeps set-output and save-state values, with the deprecation warning', () => {
    const result = processLog(out('::set-output name=a::1%0A2', '::save-state name=s::x'), {
      debug: false,
      secrets: [],
    });
    expect(result.commandOutputs).toEqual({ a: '1\n2' });
    expect(result.commandState).toEqual({ s: 'x' });
    expect(result.log.split('\n').filter((l) => l.startsWith('##[warning]'))).toHaveLength(2);
  });
});
