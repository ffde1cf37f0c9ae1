/**
 * The consent label is written in the UI schema as text with `{key}` placeholders, and each key
 * names a link in `ui:options.links`: `"I accept the {terms} and the {privacy}."` with
 * `links.terms = { label: "Terms & Conditions", href: "https://…" }`.
 */

export type ConsentPart = { kind: 'text'; text: string } | { kind: 'link'; key: string; label: string; href: string };

interface LinkOption {
  label: string;
  href: string;
}

function linkOf(links: unknown, key: string): LinkOption | undefined {
  if (links === null || typeof links !== 'object') return undefined;
  const link = (links as Record<string, unknown>)[key] as Partial<LinkOption> | null | undefined;
  if (typeof link?.label !== 'string' || typeof link.href !== 'string') return undefined;
  return { label: link.label, href: link.href };
}

/** Only web addresses (absolute http(s) or site-relative) become links; a "javascript:" href never does. */
export function isSafeHref(href: string): boolean {
  return /^https?:\/\//i.test(href) || (href.startsWith('/') && !href.startsWith('//'));
}

/**
 * Splits the text into plain runs and links. A placeholder without a usable link stays visible
 * as typed (or as its label when only the href is unsafe), so a typo shows up instead of
 * silently dropping words.
 */
export function consentParts(text: string, links: unknown): ConsentPart[] {
  const parts: ConsentPart[] = [];
  const pushText = (run: string) => {
    if (run === '') return;
    const last = parts[parts.length - 1];
    if (last?.kind === 'text') last.text += run;
    else parts.push({ kind: 'text', text: run });
  };
  const placeholder = /\{(\w+)\}/g;
  let at = 0;
  for (let match = placeholder.exec(text); match !== null; match = placeholder.exec(text)) {
    const key = match[1] ?? '';
    pushText(text.slice(at, match.index));
    at = match.index + match[0].length;
    const link = linkOf(links, key);
    if (!link) pushText(match[0]);
    else if (!isSafeHref(link.href)) pushText(link.label);
    else parts.push({ kind: 'link', key, label: link.label, href: link.href });
  }
  pushText(text.slice(at));
  return parts;
}
