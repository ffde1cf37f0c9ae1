/** Toasts as spec §8 says: 3000 ms, top-center, a dark red error icon and a green success icon. */
import type { ToasterProps } from 'react-hot-toast';

export const TOASTER_PROPS: ToasterProps = {
  position: 'top-center',
  toastOptions: {
    duration: 3000,
    success: { iconTheme: { primary: '#1e8e3e', secondary: '#ffffff' } },
    error: { iconTheme: { primary: '#8b0000', secondary: '#ffffff' } },
  },
};
