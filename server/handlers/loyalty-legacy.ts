/**
 * The public API's deprecated per-program reward assignment, member reward, points expiration and points
 * estimate operations. Each answers from the engine's loyalty functions, the same ones the current
 * operations (`/v1/rewards/{rewardId}/assignments…`, loyalty cards, earning rules) use.
 */
import { estimatePoints, pointsExpiration } from '../domain/loyalty/legacy.js';
import { findMember } from '../domain/loyalty/programs.js';
import {
  createProgramAssignments,
  deleteAssignment,
  findProgramAssignment,
  findReward,
  listProgramAssignments,
  memberRewards,
  updateAssignment,
} from '../domain/loyalty/rewards.js';
import type { Handler, HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';
import { FRESH } from '../store/fresh.js';

type LegacyLoyaltyOperations =
  | 'list-reward-assignments-1'
  | 'list-reward-assignments-2'
  | 'create-reward-assignment-1'
  | 'get-reward-assignment-1'
  | 'get-reward-assignment-2'
  | 'update-reward-assignment-1'
  | 'delete-reward-assignment-1'
  | 'get-reward-details'
  | 'list-member-rewards'
  | 'list-points-expiration'
  | 'estimate-points';

const getAssignment: Handler<'get-reward-assignment-1'> & Handler<'get-reward-assignment-2'> = async ({ path, context, services }) => ({
  status: 200,
  body: await inProject(services, context, (ctx) => findProgramAssignment(ctx, path.campaignId, path.assignmentId)),
});

export const loyaltyLegacyHandlers: HandlersOf<LegacyLoyaltyOperations> = {
  'list-reward-assignments-1': async ({ path, query, context, services }) => {
    const { assignmentId, ...page } = query;
    const found = await inProject(services, context, (ctx) => listProgramAssignments(ctx, path.campaignId, { ...FRESH, ...page, ...(assignmentId !== undefined && { assignment_id: assignmentId }) }));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: found.rows, total: found.total } };
  },
  'list-reward-assignments-2': async ({ path, query, context, services }) => {
    const found = await inProject(services, context, (ctx) => listProgramAssignments(ctx, path.campaignId, query));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: found.rows, total: found.total } };
  },
  'create-reward-assignment-1': async ({ path, body, context, services }) => ({
    status: 200,
    body: (await inProject(services, context, (ctx) => createProgramAssignments(ctx, path.campaignId, body)))[0]!,
  }),
  'get-reward-assignment-1': getAssignment,
  'get-reward-assignment-2': getAssignment,
  'update-reward-assignment-1': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => {
      const assignment = await findProgramAssignment(ctx, path.campaignId, path.assignmentId);
      return updateAssignment(ctx, assignment.reward_id, assignment.id, body);
    }),
  }),
  'delete-reward-assignment-1': async ({ path, context, services }) => {
    await inProject(services, context, async (ctx) => {
      const assignment = await findProgramAssignment(ctx, path.campaignId, path.assignmentId);
      await deleteAssignment(ctx, assignment.reward_id, assignment.id);
    });
    return { status: 204 };
  },
  'get-reward-details': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => findReward(ctx, (await findProgramAssignment(ctx, path.campaignId, path.assignmentId)).reward_id)),
  }),
  'list-member-rewards': async ({ path, query, context, services }) => {
    const rows = await inProject(services, context, async (ctx) => memberRewards(ctx, await findMember(ctx, path.memberId), query.affordable_only ?? false));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: rows, total: rows.length } };
  },
  'list-points-expiration': async ({ path, query, context, services }) => {
    const page = await inProject(services, context, async (ctx) => pointsExpiration(ctx, await findMember(ctx, path.memberId, path.campaignId), query));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: page.rows, total: page.total } };
  },
  'estimate-points': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => estimatePoints(ctx, path.campaignId, body)),
  }),
};
