/**
 * The ride-request panel's open flag (the spec's shared "request-open" state). Any navigation
 * to another route closes it, wherever it was opened.
 */
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { useLocation } from 'wouter';

const RideRequestPanelContext = createContext<{ open: boolean; setOpen: (open: boolean) => void }>({
  open: false,
  setOpen: () => undefined,
});

export function RideRequestPanelProvider({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const [location] = useLocation();
  useEffect(() => setOpen(false), [location]);
  return <RideRequestPanelContext.Provider value={{ open, setOpen }}>{children}</RideRequestPanelContext.Provider>;
}

export const useRideRequestPanel = () => useContext(RideRequestPanelContext);
