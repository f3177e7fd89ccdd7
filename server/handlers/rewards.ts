import {
  createAssignment,
  createReward,
  deleteAssignment,
  deleteReward,
  findAssignment,
  findReward,
  listAssignments,
  listRewards,
  updateAssignment,
  updateReward,
} from '../domain/loyalty/rewards.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

type RewardOperations =
  | 'list-rewards'
  | 'create-reward'
  | 'get-reward'
  | 'update-reward'
  | 'delete-reward'
  | 'list-reward-assignments'
  | 'create-reward-assignment'
  | 'get-reward-assignment'
  | 'update-reward-assignment'
  | 'delete-reward-assignment';

export const rewardHandlers: HandlersOf<RewardOperations> = {
  'list-rewards': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listRewards(ctx, query));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: page.rows, total: page.total } };
  },
  'create-reward': async ({ body, context, services }) => ({ status: 200, body: await inProject(services, context, (ctx) => createReward(ctx, body)) }),
  'get-reward': async ({ path, context, services }) => ({ status: 200, body: await inProject(services, context, (ctx) => findReward(ctx, path.rewardId)) }),
  'update-reward': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => updateReward(ctx, path.rewardId, body)),
  }),
  'delete-reward': async ({ path, context, services }) => {
    await inProject(services, context, (ctx) => deleteReward(ctx, path.rewardId));
    return { status: 204 };
  },
  'list-reward-assignments': async ({ path, query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listAssignments(ctx, path.rewardId, query));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: page.rows, total: page.total } };
  },
  'create-reward-assignment': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => createAssignment(ctx, path.rewardId, body)),
  }),
  'get-reward-assignment': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => findAssignment(ctx, path.rewardId, path.assignmentId)),
  }),
  'update-reward-assignment': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => updateAssignment(ctx, path.rewardId, path.assignmentId, body)),
  }),
  'delete-reward-assignment': async ({ path, context, services }) => {
    await inProject(services, context, (ctx) => deleteAssignment(ctx, path.rewardId, path.assignmentId));
    return { status: 204 };
  },
};
