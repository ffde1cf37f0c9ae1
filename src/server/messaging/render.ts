/**
 * A notice's words (flows/notices.json) made into the messages that go out: each placeholder
 * filled, and an email's HTML part made from its text — paragraphs, line breaks and links, every
 * value escaped, so words an administrator typed (a rejection reason) can't become markup.
 */
import type { NoticeWords } from '../../shared/notices.js';
import { fillPlaceholders } from '../../shared/placeholders.js';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Plain text as HTML: a paragraph per blank-line-separated block, <br> for single line breaks, http(s) links made links. */
export function textToHtml(text: string): string {
  const paragraphs = text
    .trim()
    .split(/\n\s*\n/)
    .map((block) =>
      escapeHtml(block)
        .replace(/https?:\/\/[^\s<]+[^\s<.,;:!?)\]'"&]/g, (url) => `<a href="${url}">${url}</a>`)
        .replace(/\n/g, '<br>'),
    )
    .map((block) => `<p style="margin:0 0 16px">${block}</p>`)
    .join('\n');
  return [
    '<!doctype html>',
    '<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>',
    '<body style="margin:0;padding:24px;background:#f5f7fb;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#101828;line-height:1.5">',
    '<div style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:12px;padding:24px">',
    paragraphs,
    '</div></body></html>',
  ].join('\n');
}

export interface RenderedNotice {
  email?: { subject: string; text: string; html: string };
  sms?: { text: string };
}

export function renderNotice(words: NoticeWords, values: Readonly<Record<string, string>>): RenderedNotice {
  const rendered: RenderedNotice = {};
  if (words.email) {
    const text = fillPlaceholders(words.email.text, values);
    rendered.email = { subject: fillPlaceholders(words.email.subject, values), text, html: textToHtml(text) };
  }
  if (words.sms) rendered.sms = { text: fillPlaceholders(words.sms.text, values) };
  return rendered;
}
