import { lazy, type ComponentType } from 'react';
import type { ScreenStep } from '../../shared/flow.js';
import type { ScreenName } from '../../shared/registries.js';
import { CallOutcomeScreen } from './CallOutcomeScreen.js';
import { MessageScreen } from './MessageScreen.js';
import { ResumeScreen } from './ResumeScreen.js';
import { RideRequestScreen } from './RideRequestScreen.js';
import { SummaryScreen } from './SummaryScreen.js';

type Screen = ComponentType<{ step: ScreenStep }>;

/** The screens that are not forms, by the name a flow step gives in `screen`. */
export const screens: Record<ScreenName, Screen> = {
  message: MessageScreen,
  // Loads the status poller (swr) only for drivers who reach the wait.
  awaitingApproval: lazy(() => import('./AwaitingApprovalScreen.js').then((module) => ({ default: module.AwaitingApprovalScreen }))),
  resume: ResumeScreen,
  rideRequest: RideRequestScreen,
  summary: SummaryScreen,
  // The card form and its provider code: only for drivers who reach the payment.
  addCard: lazy(() => import('./AddCardScreen.js').then((module) => ({ default: module.AddCardScreen }))),
  callOutcome: CallOutcomeScreen,
};
