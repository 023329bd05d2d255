import { useEffect, useRef, useState, type MouseEvent } from 'react';
import { ApiFailure } from '../api/http';
import { merchantIssue, merchantMessage, humanPath, type FieldLabels } from '../format/api-errors';

export type { FieldLabels } from '../format/api-errors';

/**
 * The summary of a failed request, placed by the submit button (docs/dashboard.md, Errors): each field
 * the server refused, named by its label and linked to it, in merchant words. When a new error
 * arrives, the first invalid field of the form is scrolled to and focused (the summary itself when no
 * field is marked). `labels` lists the form's fields (API path → visible label); a field carries its
 * path as `data-issue-path` (see `fieldIssue`) so the summary can link to it.
 */
export function FormError({ error, labels = {} }: { error: unknown; labels?: FieldLabels }) {
  const box = useRef<HTMLDivElement>(null);
  const [targets, setTargets] = useState<Record<string, string>>({});

  useEffect(() => {
    if (!error || !box.current) return;
    // A form's error goes to its first invalid field; an action's error (no form) to the message itself.
    const scope = box.current.closest('form');
    const found: Record<string, string> = {};
    scope?.querySelectorAll<HTMLElement>('[data-issue-path]').forEach((el) => {
      if (el.id) found[el.dataset.issuePath!] = el.id;
    });
    setTargets(found);
    const first = scope?.querySelector<HTMLElement>('[aria-invalid="true"]');
    const target = first ?? box.current;
    target.scrollIntoView?.({ block: 'center' });
    target.focus({ preventScroll: true });
  }, [error]);

  if (!error) return null;
  const failure = error instanceof ApiFailure ? error : null;
  const issues = failure?.issues.filter((issue) => issue.path !== 'body') ?? [];
  const jump = (path: string) => (event: MouseEvent) => {
    const el = box.current?.closest('form')?.querySelector<HTMLElement>(`[data-issue-path="${CSS.escape(path)}"]`) ?? (targets[path] ? document.getElementById(targets[path]) : null);
    if (!el) return;
    event.preventDefault();
    el.scrollIntoView?.({ block: 'center' });
    el.focus();
  };
  return (
    <div role="alert" className="form-error" ref={box} tabIndex={-1}>
      {issues.length > 0 ? (
        <>
          <p>{issues.length === 1 ? 'Check this field:' : `Check these ${issues.length} fields:`}</p>
          <ul>
            {issues.map((issue) => {
              const label = labels[issue.path] ?? capitalised(humanPath(issue.path));
              const text = `${label}: ${merchantIssue(issue.message, issue.path, labels)}`;
              return (
                <li key={issue.path}>
                  {targets[issue.path] ? (
                    <a href={`#${targets[issue.path]}`} onClick={jump(issue.path)}>
                      {text}
                    </a>
                  ) : (
                    text
                  )}
                </li>
              );
            })}
          </ul>
        </>
      ) : (
        <p>{failure ? merchantMessage(failure, labels) : 'Something went wrong. Try again.'}</p>
      )}
    </div>
  );
}

function capitalised(text: string): string {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/** The API's message for one field, in merchant words, to show beside it. */
export function issueOf(error: unknown, path: string): string | undefined {
  const message = error instanceof ApiFailure ? error.issueFor(path) : undefined;
  return message === undefined ? undefined : merchantIssue(message, path);
}

/** A field's error and its API path, to spread on a Field or SelectField: `{...fieldIssue(error, 'url')}`. */
export function fieldIssue(error: unknown, path: string): { error: string | undefined; 'data-issue-path': string } {
  return { error: issueOf(error, path), 'data-issue-path': path };
}
