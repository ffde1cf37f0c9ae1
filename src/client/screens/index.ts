import type { ComponentType } from 'react';
import type { ScreenStep } from '../../shared/flow.js';
import { AwaitingApprovalScreen } from './AwaitingApprovalScreen.js';
import { MessageScreen } from './MessageScreen.js';
import { ResumeScreen } from './ResumeScreen.js';
import { RideRequestScreen } from './RideRequestScreen.js';

/** The screens that are not forms, by the name a flow step gives in `screen`. */
export const screens: Record<string, ComponentType<{ step: ScreenStep }>> = {
  message: MessageScreen,
  awaitingApproval: AwaitingApprovalScreen,
  resume: ResumeScreen,
  rideRequest: RideRequestScreen,
};
