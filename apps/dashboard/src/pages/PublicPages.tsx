import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiFailure } from '../api/http';
import { useRequestPasswordReset, useResetPassword } from '../api/security';
import { useSession } from '../api/session';
import { useAcceptInvitation, useInvitation } from '../api/team';
import { Field } from '../components/Field';
import { fieldIssue, FormError } from '../components/FormError';
import { StatusMessage } from '../components/StatusMessage';

export function ForgotPasswordPage() {
  const request = useRequestPasswordReset();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    request.mutate(String(new FormData(event.currentTarget).get('email') ?? '').trim());
  };
  return (
    <div className="sign-in">
      <h1>Reset your password</h1>
      {request.isSuccess ? (
        <p role="status">If an account uses that address, a link to choose a new password is on its way. It works once, for 30 minutes.</p>
      ) : (
        <form onSubmit={submit} className="stack">
          <Field label="E-mail" name="email" type="email" autoComplete="username" required {...fieldIssue(request.error, 'email')} />
          <FormError error={request.error} labels={{ email: 'E-mail' }} />
          <button type="submit" disabled={request.isPending}>
            Send reset link
          </button>
        </form>
      )}
      <p>
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </div>
  );
}

export function ResetPasswordPage() {
  const { token = '' } = useParams();
  const reset = useResetPassword(token);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    reset.mutate(String(new FormData(event.currentTarget).get('password') ?? ''));
  };
  const gone = reset.error instanceof ApiFailure && reset.error.status === 404;
  return (
    <div className="sign-in">
      <h1>Choose a new password</h1>
      {reset.isSuccess ? (
        <p role="status">
          Your password is changed and every session was signed out. <Link to="/sign-in">Sign in</Link>
        </p>
      ) : gone ? (
        <p role="alert">
          This link was used already or has expired. <Link to="/forgot-password">Ask for a new one</Link>
        </p>
      ) : (
        <form onSubmit={submit} className="stack">
          <Field
            label="New password"
            name="password"
            type="password"
            autoComplete="new-password"
            minLength={12}
            required
            hint="At least 12 characters; common passwords are refused."
            {...fieldIssue(reset.error, 'password')}
          />
          <FormError error={reset.error} labels={{ password: 'New password' }} />
          <button type="submit" disabled={reset.isPending}>
            Set password
          </button>
        </form>
      )}
    </div>
  );
}

export function AcceptInvitationPage() {
  const { token = '' } = useParams();
  const session = useSession();
  const navigate = useNavigate();
  const [password, setPassword] = useState('');
  const invitation = useInvitation(token);
  const accept = useAcceptInvitation(token, () => void navigate('/'));
  if (invitation.isPending) return <StatusMessage kind="loading">Loading the invitation…</StatusMessage>;
  if (invitation.isError) {
    return (
      <div className="sign-in">
        <h1>Invitation</h1>
        <p role="alert">This invitation was used already, was revoked, or has expired. Ask for a new one.</p>
      </div>
    );
  }
  const view = invitation.data.invitation;
  const signedInAs = session.data?.user.email;
  return (
    <div className="sign-in">
      <h1>Join {view.accountName}</h1>
      <p>
        You are invited as <strong>{view.role}</strong> with {view.email}.
      </p>
      {view.existingUser ? (
        signedInAs?.toLowerCase() === view.email.toLowerCase() ? (
          <button type="button" onClick={() => accept.mutate({})} disabled={accept.isPending}>
            Accept invitation
          </button>
        ) : (
          <p>
            Sign in as {view.email} first, then open this link again. <Link to="/sign-in">Sign in</Link>
          </p>
        )
      ) : (
        <form
          className="stack"
          onSubmit={(event) => {
            event.preventDefault();
            accept.mutate({ password });
          }}
        >
          <Field
            label="Choose a password"
            type="password"
            autoComplete="new-password"
            minLength={12}
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            hint="At least 12 characters; common passwords are refused."
            {...fieldIssue(accept.error, 'password')}
          />
          <button type="submit" disabled={accept.isPending}>
            Accept invitation
          </button>
        </form>
      )}
      <FormError error={accept.error} labels={{ password: 'Choose a password' }} />
    </div>
  );
}
