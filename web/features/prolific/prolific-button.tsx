/** One button back to Prolific (completion, screen-out or return), with what it does beside it. */
export function ProlificButton({ href, label, note }: { href: string; label: string; note?: string }) {
  return (
    <div className="prolific-action">
      <a className="button button-primary" href={href} data-testid="prolific-link" rel="noopener">
        {label}
      </a>
      {note ? <p className="muted">{note}</p> : null}
    </div>
  );
}
