import { ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { BadRequestError } from '../errors/api-error';
import { validationExceptionFactory } from '../errors/validation-issues';
import { inputShapeIssues } from './input-shape';

const SCALARS: unknown[] = [String, Boolean, Number, Array, Object, Buffer];

/**
 * The global validation pipe: unknown fields refused, DTOs built and checked by class-validator, every
 * failure a 400 with `issues` (docs/errors.md). Before class-transformer sees a DTO's input, the plain
 * JSON's shape is checked (input-shape.ts): a non-object where an object is nested, or `null` for an
 * optional field that is not nullable, is refused there, cheaply and with one issue per field.
 */
export class ApiValidationPipe extends ValidationPipe {
  constructor() {
    super({ whitelist: true, forbidNonWhitelisted: true, transform: true, exceptionFactory: validationExceptionFactory });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype } = metadata;
    if (metatype && !SCALARS.includes(metatype) && (metadata.type === 'body' || metadata.type === 'query') && value !== undefined) {
      const issues = inputShapeIssues(value, metatype);
      if (issues.length) throw new BadRequestError(issues);
    }
    return super.transform(value, metadata);
  }
}
