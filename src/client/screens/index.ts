import type { ComponentType } from 'react';
import type { ScreenStep } from '../../shared/flow.js';
import { MessageScreen } from './MessageScreen.js';

/** The screens that are not forms, by the name a flow step gives in `screen`. */
export const screens: Record<string, ComponentType<{ step: ScreenStep }>> = {
  message: MessageScreen,
};
