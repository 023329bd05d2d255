import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ApiFailure } from '../api/http';
import { useSignIn } from '../api/session';

export function SignInPage() {
  const signIn = useSignIn();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [totpCode, setTotpCode] = useState('');
  const [needsCode, setNeedsCode] = useState(false);

  const failure = signIn.error instanceof ApiFailure ? signIn.error : null;
  if (failure?.code === 'totp_required' && !needsCode) setNeedsCode(true);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate({ email, password, ...(needsCode && totpCode ? { totpCode } : {}) });
  };

  return (
    <div className="sign-in">
      <h1>Sign in</h1>
      <form onSubmit={submit} noValidate>
        <label htmlFor="email">E-mail</label>
        <input id="email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <label htmlFor="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        {needsCode && (
          <>
            <label htmlFor="totp">Authentication code</label>
            <input
              id="totp"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9]{6}"
              value={totpCode}
              onChange={(e) => setTotpCode(e.target.value)}
            />
          </>
        )}
        {failure && failure.code !== 'totp_required' && (
          <p role="alert" className="form-error">
            {failure.status === 429 ? 'Too many attempts. Wait a minute and try again.' : failure.message}
          </p>
        )}
        {failure?.code === 'totp_required' && !totpCode && <p role="status">Enter the code from your authenticator app.</p>}
        <button type="submit" disabled={signIn.isPending}>
          Sign in
        </button>
      </form>
      <p>
        <Link to="/forgot-password">Forgot password?</Link>
      </p>
    </div>
  );
}
