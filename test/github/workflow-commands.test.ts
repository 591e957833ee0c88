import { describe, expect, it } from 'vitest';
import { formatAnnotation, formatMask } from '../../src/github/workflow-commands.js';

describe('workflow commands', () => {
  it('formats an error annotation with file, line, column and title', () => {
    expect(formatAnnotation({ level: 'error', file: 'apps/bundle.cue', line: 12, column: 3, title: 'CUE error at bundle.name', message: 'invalid value' })).toBe(
      '::error file=apps/bundle.cue,line=12,col=3,title=CUE error at bundle.name::invalid value\n',
    );
  });

  it('escapes data and properties as the runner decodes them', () => {
    expect(formatAnnotation({ level: 'warning', file: 'a,b:c.cue', message: '50% done\nnext line\r' })).toBe(
      '::warning file=a%2Cb%3Ac.cue::50%25 done%0Anext line%0D\n',
    );
  });

  it('registers a mask', () => {
    expect(formatMask('s3cr%t')).toBe('::add-mask::s3cr%25t\n');
  });
});
