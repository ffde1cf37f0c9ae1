/**
 * Stands in for markdown-to-jsx, which @rjsf/core imports for markdown descriptions (31 KB gzip).
 * Our copy is plain text, so text is rendered as text.
 */
import type { ReactNode } from 'react';

export function Markdown({ children }: { children?: ReactNode }) {
  return <>{children}</>;
}
export default Markdown;
