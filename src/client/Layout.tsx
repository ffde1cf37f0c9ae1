import type { ReactNode } from 'react';

/** The page frame: the product's mark and one column that reads well on a phone. */
export function Layout({ aside, children }: { aside?: ReactNode; children: ReactNode }) {
  return (
    <div className={aside ? 'page has-aside' : 'page'}>
      <header className="page-header">
        <img src="/assets/logo.svg" alt="Onramp" width={120} height={32} />
      </header>
      {aside && <aside className="page-aside">{aside}</aside>}
      <main className="page-main">{children}</main>
    </div>
  );
}
