export const COMMON_PASSWORDS = `
password
password1234
123456789012
`;
