/**
 * A modal dialog of the browser's own (`<dialog>` opened with showModal): focus moves in and stays
 * there, the page behind is inert, and Escape asks to close it (`onCancel`, which decides).
 */
import { useEffect, useRef, type ReactNode } from 'react';

interface DialogProps {
  /** The id of the dialog's heading, which names it. */
  labelledBy: string;
  /** The id of the text that says what it is about, read out when it opens. */
  describedBy?: string;
  /** `alertdialog` when it interrupts to report a problem (the dev overlay of a broken edit). */
  role?: 'alertdialog';
  className?: string;
  onCancel: () => void;
  /** Once it is open (e.g. to select an input's text). */
  onOpen?: () => void;
  children: ReactNode;
}

export function Dialog({ labelledBy, describedBy, role, className, onCancel, onOpen, children }: DialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opened = useRef(onOpen);
  useEffect(() => {
    dialog.current?.showModal();
    opened.current?.();
  }, []);
  return (
    <dialog
      ref={dialog}
      role={role}
      className={className ? `dialog ${className}` : 'dialog'}
      aria-labelledby={labelledBy}
      aria-describedby={describedBy}
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
    >
      {children}
    </dialog>
  );
}
