import type { ReactNode } from 'react';

/** A titled section; `onIntent` hears the first touch, pointer or focus inside it (to fetch what a click there will need). */
export function Card({ title, children, className, onIntent }: { title?: ReactNode; children: ReactNode; className?: string; onIntent?: () => void }) {
  return (
    <section className={`card ${className ?? ''}`.trim()} onPointerEnter={onIntent} onTouchStart={onIntent} onFocus={onIntent}>
      {title ? <h2 className="card-title">{title}</h2> : null}
      {children}
    </section>
  );
}
