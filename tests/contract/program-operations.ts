/**
 * The operations of the bin, campaign template, referral holder, permanent customer deletion, deprecated
 * customer activities and deprecated loyalty reward/points families. The SDK methods that reach them are
 * driven by sdk-programs.test.ts and sdk-node-programs.test.ts; the other SDK files leave them to those.
 */
export const PROGRAM_OPERATIONS: ReadonlySet<string> = new Set([
  'list-bin-entries',
  'delete-bin-entry',
  'create-campaign-template',
  'list-campaign-templates',
  'get-campaign-template',
  'update-campaign-template',
  'delete-campaign-template',
  'create-campaign-from-template',
  'add-tier-from-template',
  'management-list-campaign-templates',
  'management-copy-campaign-template',
  'referrals-add-holders',
  'referrals-add-holders-1',
  'referrals-code-holders',
  'referrals-code-holders-1',
  'referrals-remove-holder',
  'referrals-remove-holder-1',
  'customer-permanently-deletion',
  'list-customer-activities',
  'create-reward-assignment-1',
  'list-reward-assignments-1',
  'list-reward-assignments-2',
  'get-reward-assignment-1',
  'get-reward-assignment-2',
  'update-reward-assignment-1',
  'delete-reward-assignment-1',
  'get-reward-details',
  'list-member-rewards',
  'list-points-expiration',
  'estimate-points',
]);
