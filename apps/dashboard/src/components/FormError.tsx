import { ApiFailure } from '../api/http';

/** The error of a failed request, unless every issue in it is already shown beside its field. */
export function FormError({ error, fields = [] }: { error: unknown; fields?: string[] }) {
  if (!error) return null;
  if (error instanceof ApiFailure && error.issues.length && error.issues.every((issue) => fields.includes(issue.path))) return null;
  const message = error instanceof ApiFailure ? error.message : 'Something went wrong. Try again.';
  const rest = error instanceof ApiFailure ? error.issues.filter((issue) => !fields.includes(issue.path)) : [];
  return (
    <div role="alert" className="form-error">
      <p>{message}</p>
      {rest.length > 0 && (
        <ul>
          {rest.map((issue) => (
            <li key={issue.path}>
              {issue.path}: {issue.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function issueOf(error: unknown, path: string): string | undefined {
  return error instanceof ApiFailure ? error.issueFor(path) : undefined;
}
