/**
 * `npm run validate -- --junit FILE`: the results as a JUnit XML report, the format CI
 * dashboards read. One test case per fixture file, named by the file, grouped by step.
 */
import type { FixtureResult } from './fixtures.js';

/** Characters XML 1.0 cannot hold at all, even escaped (control characters, lone surrogates). */
const NOT_XML = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\n': '&#10;' };

/** Text for an attribute value (line breaks kept as &#10;) or, without them, for element content. */
function escapeXml(text: string, { inAttribute }: { inAttribute: boolean }): string {
  return text.replace(NOT_XML, '\uFFFD').replace(inAttribute ? /[&<>"'\n]/g : /[&<>"']/g, (c) => ESCAPES[c]!);
}

const attribute = (text: string) => escapeXml(text, { inAttribute: true });

export function junitReport(results: FixtureResult[]): string {
  const failures = results.filter((r) => !r.passed).length;
  const counts = `tests="${results.length}" failures="${failures}" errors="0" skipped="0"`;
  const cases = results.map((result) => {
    const open = `    <testcase classname="${attribute(result.target || 'fixture')}" name="${attribute(result.file)}"`;
    if (result.passed) return `${open}/>`;
    const failing = result.lines.filter((line) => !line.ok).map((line) => line.text);
    const details = result.lines.map((line) => `${line.ok ? '  ' : '✗ '}${line.text}`).join('\n');
    return [
      `${open}>`,
      `      <failure message="${attribute(failing.join('; '))}" type="fixture">${escapeXml(details, { inAttribute: false })}</failure>`,
      '    </testcase>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="npm run validate" ${counts}>`,
    `  <testsuite name="fixtures" ${counts}>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
