import { ApiError } from '@app/core';
import { assertAcceptablePassword, COMMON_PASSWORD_COUNT } from './password-policy';

function refusal(password: string): string | null {
  try {
    assertAcceptablePassword(password, 'password');
    return null;
  } catch (error) {
    return (error as ApiError).issues![0].message;
  }
}

describe('password policy', () => {
  it('ships a thousand common passwords', () => {
    expect(COMMON_PASSWORD_COUNT).toBe(1000);
  });

  it('refuses fewer than 12 characters, and common passwords whatever their case', () => {
    expect(refusal('eleven char')).toMatch(/at least 12/);
    expect(refusal('Password1234')).toMatch(/common/);
    expect(refusal('1QAZ2WSX3EDC')).toMatch(/common/);
    expect(refusal('qwertyuiop123')).toMatch(/common/);
  });

  it('accepts a long password of its own', () => {
    expect(refusal('twelve chars')).toBeNull();
    expect(refusal('correct horse battery staple')).toBeNull();
  });
});
