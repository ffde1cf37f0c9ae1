/**
 * Where toasts show (toast.ts loads this module, and the library from it). As spec §8 says: 3000 ms,
 * top-center, a dark red error icon and a green success icon. One at a time, close to the top
 * edge: the newest replaces the one before (a stale error never stands beside the success that
 * followed it), and a single toast covers the page's header, not its title. The spec says nothing
 * of several at once: one at a time is a departure on purpose (docs/departures.md).
 */
import { useEffect } from 'react';
import toast, { Toaster, useToasterStore, type ToasterProps } from 'react-hot-toast';

export { toast as toasts };

const TOASTER_PROPS: ToasterProps = {
  position: 'top-center',
  containerStyle: { top: 8 },
  toastOptions: {
    duration: 3000,
    success: { iconTheme: { primary: '#1e8e3e', secondary: '#ffffff' } },
    error: { iconTheme: { primary: '#8b0000', secondary: '#ffffff' } },
  },
};

/** Dismisses every toast on screen but the newest (react-hot-toast keeps the newest first). */
function useOneToastAtATime(): void {
  const { toasts } = useToasterStore();
  useEffect(() => {
    for (const older of toasts.filter((each) => each.visible).slice(1)) toast.dismiss(older.id);
  }, [toasts]);
}

export function ToastArea() {
  useOneToastAtATime();
  return <Toaster {...TOASTER_PROPS} />;
}
