import { DomainError } from '../../shared/domain-error';

/** A request the method cannot take: 422 validation_failed naming the field. */
export function refuse(param: string, message: string): never {
  throw new DomainError('validation_failed', message, { param });
}
