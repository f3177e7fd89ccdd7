import { UniqueViolation } from '../store/store.js';
import { duplicate } from './errors.js';

/** Runs a store write, turning a unique-constraint violation into the interface's 409 error. */
export async function writeUnique<T>(resourceType: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof UniqueViolation) throw duplicate(resourceType, error.field, error.value);
    throw error;
  }
}
