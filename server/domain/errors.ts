/**
 * Failures the engine reports. They carry the interface's error key and wording but no HTTP status:
 * the HTTP layer maps each kind to a status.
 */
export type DomainErrorKind = 'invalid' | 'not_found' | 'duplicate';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    readonly key: string,
    message: string,
    readonly details: string,
    readonly resourceId?: string,
    readonly resourceType?: string,
    /** The custom message of the validation rule that failed, when it has one (the error body's `error.message`). */
    readonly customMessage?: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export function notFound(resourceType: string, resourceId: string): DomainError {
  return new DomainError(
    'not_found',
    'not_found',
    'Resource not found',
    `Cannot find ${resourceType} with id ${resourceId}`,
    resourceId,
    resourceType,
  );
}

export function duplicate(resourceType: string, field: string, value: unknown): DomainError {
  return new DomainError(
    'duplicate',
    'duplicate_found',
    'Duplicated resource found',
    `A ${resourceType} with ${field} '${String(value)}' already exists`,
    String(value),
    resourceType,
  );
}

export function invalid(key: string, message: string, details: string): DomainError {
  return new DomainError('invalid', key, message, details);
}
