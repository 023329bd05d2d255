import { describe, expect, it } from 'vitest';
import { describeText, merchantIssue, merchantMessage } from './api-errors';

const labels = { 'recipient.email': "Recipient's e-mail", expiresAt: 'Expires at', url: 'URL' };

describe('API errors in merchant words', () => {
  it('known field messages are reworded, with no field path or code', () => {
    expect(merchantIssue('must be an email', 'recipient.email', labels)).toBe('Enter an e-mail address such as name@example.com.');
    expect(merchantIssue('expiresAt must be in the future', 'expiresAt', labels)).toBe('Choose a date and time in the future.');
    expect(merchantIssue('URL must not contain credentials', 'url', labels)).toBe('Remove the user name and password from the address.');
    expect(merchantIssue('deliverAt must be at least 60 seconds in the future; omit it to send now', 'deliverAt')).toBe(
      'Choose a time at least a minute from now, or leave it empty to send now.',
    );
  });

  it('an unknown field message keeps the server text, the field said in words', () => {
    expect(merchantIssue('toAmountCents must not be greater than 100000000', 'toAmountCents')).toBe('Check this value: this must not be greater than 100000000.');
    expect(merchantIssue('recipient.email must be unique', 'other', labels)).toBe("Check this value: Recipient's e-mail must be unique.");
  });

  it('a bulk row error loses its code and "Invalid request:" prefix and names fields by label', () => {
    expect(describeText('bad_request: Invalid request: recipient.email: must be an email', labels)).toBe(
      "Recipient's e-mail: Enter an e-mail address such as name@example.com.",
    );
    expect(describeText('bad_request: Invalid request: recipient.firstName: should not be empty')).toBe('Recipient first name: Fill this in.');
    expect(describeText('validation: Item U123 is not in the catalog or is no longer orderable.')).toBe(
      'That did not go through: Item U123 is not in the catalog or is no longer orderable.',
    );
  });

  it('whole-request failures: a paused endpoint is said plainly, never as PATCH active: true', () => {
    const paused = { status: 422, code: 'validation', message: 'The endpoint is paused; reactivate it (PATCH active: true) before retrying.' };
    expect(merchantMessage(paused)).toBe('This endpoint is paused: resume it first.');
    expect(merchantMessage({ status: 500, code: 'internal', message: 'Internal server error.' })).toBe('The service could not do this just now. Try again in a moment.');
    expect(merchantMessage({ status: 402, code: 'insufficient_funds', message: 'The USD wallet has $5.00 available.' })).toBe('The USD wallet has $5.00 available.');
  });
});
