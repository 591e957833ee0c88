// The images of an instance's record, as Timoni's GetContainerImages lists them: the
// references in walk order, a repeat right after the same one dropped (slices.Compact),
// then sorted (slices.Sort). A reference met again after another stays twice.
import { describe, expect, it } from 'vitest';
import { collectImages } from '../../src/module/build.js';

const image = (repository: string, tag: string) => ({ repository, tag, digest: '', reference: `${repository}:${tag}` });

describe('collectImages', () => {
  it('drops a repeat that follows the same reference and sorts', () => {
    expect(
      collectImages({ b: image('ghcr.io/z', '1'), c: image('ghcr.io/z', '1'), a: image('ghcr.io/a', '2') }),
    ).toEqual(['ghcr.io/a:2', 'ghcr.io/z:1']);
  });

  it('keeps a reference met twice with another between, as Timoni records it', () => {
    expect(
      collectImages({ app: image('ghcr.io/z', '1'), sidecar: image('ghcr.io/a', '2'), job: image('ghcr.io/z', '1') }),
    ).toEqual(['ghcr.io/a:2', 'ghcr.io/z:1', 'ghcr.io/z:1']);
  });

  it('walks lists and nested structs, and takes only structs with every #Image field', () => {
    const config = {
      containers: [{ image: image('r/x', '1') }, { image: { repository: 'r/y', tag: '2', reference: 'r/y:2' } }],
      nested: { deep: image('r/w', '3') },
    };
    expect(collectImages(config)).toEqual(['r/w:3', 'r/x:1']);
  });
});
