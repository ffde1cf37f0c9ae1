/**
 * The app is written against React's API (its types, rjsf, swr, wouter and the other React
 * packages), and the browser runs it on Preact's compatibility layer: the same API at about a
 * tenth of react-dom's size, which takes 56 KB gzip off a driver's first page (the budget is
 * 120 KB). The build and the component tests resolve React's packages, and every path inside
 * them, to these, so what the tests render is what ships.
 */
export const REACT_RUNTIME = { react: 'preact/compat', 'react-dom': 'preact/compat' } as const;
