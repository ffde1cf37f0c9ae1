/**
 * The flow step a page shows, for what every page of it shares (the journey strip in Layout): App
 * provides it for each step's route, so a screen or a form needs no prop to say which it is.
 */
import { createContext, useContext } from 'react';
import type { Step } from '../../shared/flow.js';

export const CurrentStep = createContext<Step | undefined>(undefined);

export const useCurrentStep = () => useContext(CurrentStep);
