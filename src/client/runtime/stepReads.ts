/**
 * What a form step reads each time it opens: its draft on this device and, for a reviewed step of
 * a signed-in driver, what they sent of it (the flow's `review.answersCall`), with its photos.
 * Each is named by a key holding the step and the driver, so that a read begun as the page opened
 * (main.tsx) is taken only by the form it was begun for (reads.ts, useOpeningRead).
 */
import { keepPhoto } from '../../../widgets/photoStore.js';
import type { StepAnswersAnswer } from '../../shared/review.js';
import { callApi, getBlob } from './api.js';
import { draftKey, readDraft, type Draft } from './drafts.js';
import { callByName, flow } from './flow.js';
import { dataOf, type KeyedRead } from './reads.js';
import { getItem, getTokenCookie } from './storage.js';

export function draftRead(stepId: string): KeyedRead<Draft | undefined> {
  const driver = getItem('driver_id');
  return { key: `draft:${draftKey(driver, stepId)}`, read: () => readDraft(driver, stepId) };
}

/** Null for a step that is not reviewed, or with no driver signed in: nothing sent to read back. */
export function storedAnswersRead(stepId: string): KeyedRead<StepAnswersAnswer> | null {
  const token = getTokenCookie();
  if (!flow.review.steps.includes(stepId) || !token) return null;
  return { key: `answers:${getItem('driver_id') ?? ''}:${stepId}`, read: () => fetchStoredAnswers(stepId, token) };
}

async function fetchStoredAnswers(step: string, token: string): Promise<StepAnswersAnswer> {
  const stored = await dataOf(callApi<StepAnswersAnswer>(callByName(flow.review.answersCall), {}, { step }));
  // The photos before the form shows: a slot is either filled with the driver's photo or empty.
  await Promise.all(
    Object.entries(stored.files).map(async ([field, file]) => {
      const photo = await getBlob(file.url, token);
      if (photo.ok) keepPhoto(field, photo.data, file.id);
    }),
  );
  return stored;
}
