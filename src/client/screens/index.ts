import { lazy, type ComponentType } from 'react';
import type { ScreenStep } from '../../shared/flow.js';
import type { ScreenName } from '../../shared/registries.js';
import { MessageScreen } from './MessageScreen.js';
import { ResumeScreen } from './ResumeScreen.js';

type Screen = ComponentType<{ step: ScreenStep }>;

/**
 * The screens that are not forms, by the name a flow step gives in `screen`. A screen met on a few
 * steps only is its own chunk, which the build preloads on its route (route-preloads.json), so the
 * first page of every other step does without it; the message screen is everywhere, and the resume
 * link's route (/:id/:token) has no preload of its own.
 */
export const screens: Record<ScreenName, Screen> = {
  message: MessageScreen,
  // Loads the status poller (swr) only for drivers who reach the wait.
  awaitingApproval: lazy(() => import('./AwaitingApprovalScreen.js').then((module) => ({ default: module.AwaitingApprovalScreen }))),
  resume: ResumeScreen,
  rideRequest: lazy(() => import('./RideRequestScreen.js').then((module) => ({ default: module.RideRequestScreen }))),
  summary: lazy(() => import('./SummaryScreen.js').then((module) => ({ default: module.SummaryScreen }))),
  // The card form and its provider code: only for drivers who reach the payment.
  addCard: lazy(() => import('./AddCardScreen.js').then((module) => ({ default: module.AddCardScreen }))),
  callOutcome: lazy(() => import('./CallOutcomeScreen.js').then((module) => ({ default: module.CallOutcomeScreen }))),
};
