// One test for each piece, tagged with it: it passes where the piece is, and fails where it runs without it.
import { expect, it } from 'vitest';
import { PREREQUISITES } from '../../support/prerequisites.js';

for (const piece of PREREQUISITES) {
  it(`finds ${piece.name}`, { tags: [piece.tag] }, () => {
    expect(piece.present()).toBe(true);
  });
}
