/**
 * Applies an update request: fields left out (undefined) keep their values, a null clears one, and the
 * update time moves.
 */
export function applyChanges<T extends { updated_at?: string | null }>(row: T, changes: Partial<T>, updatedAt: string): T {
  const given = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  return { ...row, ...given, updated_at: updatedAt };
}
