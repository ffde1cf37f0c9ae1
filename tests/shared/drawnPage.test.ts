// The first visit's rule, as both the server (routes/static.ts, by the cookies) and the browser
// (app/main.tsx, by what it read) apply it: a drawn page is used only when the device holds nothing to fill it with.
import { describe, expect, it } from 'vitest';
import { deviceFills, draftSteps } from '../../src/shared/drawnPage.js';

const nothing = { draft: false, signedIn: false };

describe('whether the device fills a step the server drew (shared/drawnPage.ts)', () => {
  it('uses the drawing when the device holds nothing of the step', () => {
    expect(deviceFills({ reviewed: false }, nothing)).toBe(false);
    expect(deviceFills({ reviewed: true }, nothing)).toBe(false);
  });

  it('draws afresh when the device keeps a draft of the step, reviewed or not', () => {
    expect(deviceFills({ reviewed: false }, { ...nothing, draft: true })).toBe(true);
    expect(deviceFills({ reviewed: true }, { ...nothing, draft: true })).toBe(true);
  });

  it('draws afresh for a signed-in driver on a reviewed step only: the answers they sent fill it', () => {
    expect(deviceFills({ reviewed: true }, { ...nothing, signedIn: true })).toBe(true);
    expect(deviceFills({ reviewed: false }, { ...nothing, signedIn: true })).toBe(false);
  });

  it('draws afresh when the browser picks another variant of the form than the one drawn', () => {
    expect(deviceFills({ reviewed: false }, { ...nothing, otherVariant: true })).toBe(true);
    expect(deviceFills({ reviewed: false }, { ...nothing, otherVariant: false })).toBe(false);
  });
});

describe('the steps a drafts cookie names', () => {
  it('reads each step id, and none from no cookie or an empty one', () => {
    expect(draftSteps('signup.completeProfile')).toEqual(['signup', 'completeProfile']);
    expect(draftSteps('addVehicle')).toEqual(['addVehicle']);
    expect(draftSteps('')).toEqual([]);
    expect(draftSteps(undefined)).toEqual([]);
  });
});
