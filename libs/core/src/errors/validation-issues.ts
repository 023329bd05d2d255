import type { ValidationError as ClassValidatorError } from 'class-validator';
import { BadRequestError, FieldIssue } from './api-error';

/** Flattens class-validator's nested errors into `{path, message}` issues, one per failed rule. */
export function toFieldIssues(errors: ClassValidatorError[], parent = ''): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    for (const message of Object.values(error.constraints ?? {})) {
      issues.push({ path, message: message.replace(/^property /, '') });
    }
    if (error.children?.length) for (const issue of toFieldIssues(error.children, path)) issues.push(issue);
  }
  return issues;
}

export function validationExceptionFactory(errors: ClassValidatorError[]): BadRequestError {
  return new BadRequestError(toFieldIssues(errors));
}
