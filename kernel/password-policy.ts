import { badRequest } from './errors.ts';

/** The spec's password policy: length 8 to 128 (default minimum 8), optional three-of-four classes. */
export interface PasswordPolicy {
  minLength: number;
  requireThreeClasses: boolean;
}

export const DEFAULT_PASSWORD_POLICY: PasswordPolicy = { minLength: 8, requireThreeClasses: false };
export const PASSWORD_MAX_LENGTH = 128;

/** Throws a 400 naming `field` when the password breaks the policy. The e-mail is never allowed. */
export function assertPasswordAllowed(
  password: string,
  email: string,
  policy: PasswordPolicy,
  field = 'password',
): void {
  if (password.length < policy.minLength) {
    throw badRequest(`${field} must be at least ${policy.minLength} characters`, field, 'PASSWORD_POLICY');
  }
  if (password.length > PASSWORD_MAX_LENGTH) {
    throw badRequest(`${field} must be at most ${PASSWORD_MAX_LENGTH} characters`, field, 'PASSWORD_POLICY');
  }
  if (email && password.trim().toLowerCase() === email.trim().toLowerCase()) {
    throw badRequest(`${field} must not be the e-mail address`, field, 'PASSWORD_POLICY');
  }
  if (policy.requireThreeClasses) {
    const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/].filter((re) => re.test(password)).length;
    if (classes < 3) {
      throw badRequest(
        `${field} must contain three of: lower-case letters, upper-case letters, digits, other characters`,
        field,
        'PASSWORD_POLICY',
      );
    }
  }
}
