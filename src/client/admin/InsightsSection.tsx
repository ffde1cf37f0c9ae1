/**
 * Insights (reviewers and owners; routes/insights.ts): for the drivers who signed up in a range,
 * filtered by sign-up method and language, the funnel of the flow's steps, the time in each step,
 * who stalled where, and how long reviews take and what they ask to fix. The two charts are drawn
 * here (the funnel as bars laid out by the page, the review turnaround by day as an SVG at its
 * box's width): no chart library on the page. Every figure is also in the tables beside them, for
 * screen readers and for copying.
 */
import type { PeopleFilter } from './PeopleSection.js';
import { useEffect, useState } from 'react';
import useSWR from 'swr';
import { LOCALES } from '../../shared/locales.js';
import type { Insights } from '../../shared/review.js';
import { flow } from '../runtime/flow.js';
import { READ_ONCE, type RequestError } from '../runtime/reads.js';
import { checkRefusal, download, isRefusal, readAdmin, type AdminSession } from './adminApi.js';
import { formatDuration } from './adminData.js';
import { ReadFailure } from './ReadFailure.js';

const DAY_MS = 24 * 3600 * 1000;
const day = (at: number) => new Date(at).toISOString().slice(0, 10);

/** How a sign-up method is named: the flow's social providers, and email. */
const METHODS: readonly { id: string; name: string }[] = [{ id: 'password', name: 'Email' }, ...(flow.social?.providers ?? [])];

const percent = (share: number | null) => (share === null ? '—' : `${(share * 100).toFixed(1)}%`);

/**
 * The funnel: a row per step, its bar as wide as its share of those who signed up. Laid out by
 * the page (admin.css), not drawn to a fixed width: the names wrap and the counts stay in view on
 * a phone.
 */
function FunnelChart({ insights }: { insights: Insights }) {
  const top = Math.max(1, insights.steps[0]?.completed ?? 0);
  return (
    <div className="admin-funnel" role="img" aria-label={`Funnel: ${insights.steps.map((step) => `${step.label} ${step.completed}`).join(', ')}`}>
      {insights.steps.map((step) => (
        <div key={step.step} className="admin-funnel-row" data-step={step.step}>
          <span className="admin-funnel-label">{step.label}</span>
          <span className="admin-funnel-track">
            <span className="admin-funnel-bar" style={{ width: `${Math.max(0.5, (step.completed / top) * 100)}%` }} />
          </span>
          <span className="admin-funnel-value">{step.completed}</span>
        </div>
      ))}
    </div>
  );
}

const LINE_HEIGHT = 180;
const LINE_PAD = 36;
/** Until its box is measured; then the chart is drawn at the box's own width, so its words keep their size. */
const FIRST_WIDTH = 640;
const MAX_WIDTH = 720;

/** The width of `element`'s box, as it changes. */
function useWidth(element: Element | null): number {
  const [width, setWidth] = useState(FIRST_WIDTH);
  useEffect(() => {
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => entry && setWidth(Math.min(MAX_WIDTH, Math.floor(entry.contentRect.width))));
    observer.observe(element);
    return () => observer.disconnect();
  }, [element]);
  return width;
}

/** The review turnaround's median by day, as a line over the days that had decisions. */
function TurnaroundChart({ insights }: { insights: Insights }) {
  const [box, setBox] = useState<HTMLDivElement | null>(null);
  const width = useWidth(box);
  const days = insights.review.byDay;
  if (days.length === 0) return <p className="admin-empty">No decisions in this range.</p>;
  const highest = Math.max(1, ...days.map((each) => each.medianHours));
  const x = (index: number) => LINE_PAD + (days.length === 1 ? (width - 2 * LINE_PAD) / 2 : (index / (days.length - 1)) * (width - 2 * LINE_PAD));
  const y = (hours: number) => LINE_HEIGHT - LINE_PAD - (hours / highest) * (LINE_HEIGHT - 2 * LINE_PAD);
  return (
    <div ref={setBox} className="admin-chart-box">
      <svg
        className="admin-chart"
        width={width}
        height={LINE_HEIGHT}
        viewBox={`0 0 ${width} ${LINE_HEIGHT}`}
        role="img"
        aria-label={`Median review turnaround by day: ${days.map((each) => `${each.day} ${formatDuration(each.medianHours)}`).join(', ')}`}
      >
        <line x1={LINE_PAD} x2={width - LINE_PAD} y1={y(0)} y2={y(0)} className="admin-chart-axis" />
        <text x={LINE_PAD} y={12} textAnchor="start" className="admin-chart-value">
          {formatDuration(highest)}
        </text>
        <line x1={LINE_PAD - 4} x2={width - LINE_PAD} y1={y(highest)} y2={y(highest)} className="admin-chart-axis" />
        <polyline points={days.map((each, index) => `${x(index)},${y(each.medianHours)}`).join(' ')} className="admin-chart-line" />
        {days.map((each, index) => (
          <circle key={each.day} cx={x(index)} cy={y(each.medianHours)} r={4} className="admin-chart-dot">
            <title>{`${each.day}: ${formatDuration(each.medianHours)}, ${each.decisions} decisions`}</title>
          </circle>
        ))}
        <text x={LINE_PAD} y={LINE_HEIGHT - 10} textAnchor="start" className="admin-chart-value">
          {days[0]!.day}
        </text>
        {days.length > 1 && (
          <text x={width - LINE_PAD} y={LINE_HEIGHT - 10} textAnchor="end" className="admin-chart-value">
            {days.at(-1)!.day}
          </text>
        )}
      </svg>
    </div>
  );
}

interface Filter {
  from: string;
  to: string;
  method: string;
  language: string;
  stalledDays: string;
}

const queryOf = (filter: Filter) => new URLSearchParams(Object.entries(filter).filter(([, value]) => value !== '')).toString();

export function InsightsSection({ session, onShowDrivers }: { session: AdminSession; onShowDrivers: (filter: Partial<PeopleFilter>) => void }) {
  const [filter, setFilter] = useState<Filter>(() => ({
    from: day(Date.now() - 29 * DAY_MS),
    to: day(Date.now()),
    method: '',
    language: '',
    stalledDays: '7',
  }));
  const [shown, setShown] = useState(filter);
  const {
    data: insights,
    error,
    isValidating,
  } = useSWR<Insights, RequestError>([`/admin/insights?${queryOf(shown)}`, session.bearer], readAdmin<Insights>, {
    ...READ_ONCE,
    onError: (failed) => checkRefusal(session, failed),
  });
  const change = (key: keyof Filter) => (event: { target: { value: string } }) => setFilter({ ...filter, [key]: event.target.value });

  async function save() {
    const result = await download(`/admin/insights/download?${queryOf(shown)}`, session.bearer, `onramp-insights-${shown.from}-${shown.to}.csv`);
    if (!result.ok && isRefusal(result.status)) session.refused(result);
  }

  return (
    <>
      <h2>Insights</h2>
      <form
        className="admin-audit-filter"
        onSubmit={(event) => {
          event.preventDefault();
          setShown(filter);
        }}
      >
        <label htmlFor="insights-from">Signed up from</label>
        <input id="insights-from" type="date" className="admin-input" value={filter.from} onChange={change('from')} required />
        <label htmlFor="insights-to">to</label>
        <input id="insights-to" type="date" className="admin-input" value={filter.to} onChange={change('to')} required />
        <label htmlFor="insights-method">Sign-up method</label>
        <select id="insights-method" className="admin-input" value={filter.method} onChange={change('method')}>
          <option value="">All</option>
          {METHODS.map((method) => (
            <option key={method.id} value={method.id}>
              {method.name}
            </option>
          ))}
        </select>
        <label htmlFor="insights-language">Language</label>
        <select id="insights-language" className="admin-input" value={filter.language} onChange={change('language')}>
          <option value="">All</option>
          {Object.entries(LOCALES).map(([code, name]) => (
            <option key={code} value={code}>
              {name}
            </option>
          ))}
        </select>
        <label htmlFor="insights-stalled">Stalled after (days without progress)</label>
        <input id="insights-stalled" type="number" min={1} max={365} className="admin-input" value={filter.stalledDays} onChange={change('stalledDays')} />
        <div className="admin-actions">
          <button type="submit" className="button button-secondary admin-action">
            Show
          </button>
          <button type="button" className="button button-secondary admin-action" onClick={() => void save()}>
            Download CSV
          </button>
        </div>
      </form>
      {isValidating && <p className="admin-muted">Loading…</p>}
      <ReadFailure error={error} />
      {insights && (
        <>
          <p className="admin-insights-summary">
            <span>
              Drivers who signed up: <strong data-figure="drivers">{insights.drivers}</strong>
            </span>
            <span>
              Decisions: <strong data-figure="decisions">{insights.review.decisions}</strong>
            </span>
            <span>
              Approval rate: <strong data-figure="approvalRate">{percent(insights.review.approvalRate)}</strong>
            </span>
            <span>
              Review turnaround: median <strong data-figure="reviewMedian">{formatDuration(insights.review.medianHours)}</strong>, 90th percentile{' '}
              <strong data-figure="reviewP90">{formatDuration(insights.review.p90Hours)}</strong>
            </span>
          </p>
          {!insights.timesExact && (
            <p className="admin-hint admin-muted" data-figure="timesApproximate">
              Over a range this long, the medians and 90th percentiles come from running totals: each is within 1 % of the exact time. Counts and rates are
              exact.
            </p>
          )}
          <h3>Funnel</h3>
          <FunnelChart insights={insights} />
          <table className="admin-audit admin-insights-steps">
            <thead>
              <tr>
                <th scope="col">Step</th>
                <th scope="col">Completed</th>
                <th scope="col">From the step before</th>
                <th scope="col">Median time</th>
                <th scope="col">90th percentile</th>
                <th scope="col">Stalled {insights.stalledDays}+ days</th>
              </tr>
            </thead>
            <tbody>
              {insights.steps.map((step) => (
                <tr key={step.step} data-step={step.step}>
                  <td data-label="Step">{step.label}</td>
                  <td data-label="Completed">{step.completed}</td>
                  <td data-label="From the step before">{percent(step.conversion)}</td>
                  <td data-label="Median time">{formatDuration(step.medianHours)}</td>
                  <td data-label="90th percentile">{formatDuration(step.p90Hours)}</td>
                  <td data-label="Stalled">
                    {step.stalled ? (
                      <button
                        type="button"
                        className="admin-link-button"
                        aria-label={`${step.stalled} stalled at ${step.label}: show them`}
                        onClick={() => onShowDrivers({ ...shown, step: step.step })}
                      >
                        {step.stalled}
                      </button>
                    ) : (
                      (step.stalled ?? '—')
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <h3>Review turnaround by day (median, sent for approval → decision)</h3>
          <TurnaroundChart insights={insights} />
          <h3>Most frequent reasons for fixes</h3>
          {insights.review.fixReasons.length === 0 ? (
            <p className="admin-empty">No fixes asked for in this range.</p>
          ) : (
            <ol className="admin-insights-reasons">
              {insights.review.fixReasons.map((fix) => (
                <li key={fix.reason}>
                  {fix.reason} <span className="admin-muted">({fix.count})</span>
                </li>
              ))}
            </ol>
          )}
        </>
      )}
    </>
  );
}
