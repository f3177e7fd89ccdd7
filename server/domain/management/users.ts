/**
 * Users of the organization and their roles in projects. A user exists once in the organization (created
 * by an invitation) and is assigned to any number of projects, with one role in each.
 */
import type { components } from '../../../generated/openapi.js';
import type { DomainContext } from '../context.js';
import { DomainError, invalid, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { writeUnique } from '../unique.js';
import { findProject } from './project-lookup.js';
import { table } from '../../store/schema.js';
import { notNull, type Condition } from '../../store/conditions.js';
import { FRESH } from '../../store/fresh.js';
import { isoNow } from '../clock.js';

export type ProjectUser = components['schemas']['ProjectUser'];
type Role = components['schemas']['UserRole'];
type Assign = components['schemas']['ProjectUsersAssignRequestBody'];
type Invite = components['schemas']['ProjectUsersInviteRequestBody'];

export interface UserRecord extends Omit<ProjectUser, 'role'> {
  created_at: string;
}

export const USERS_TABLE = table<UserRecord>({ unique: ['login'], indexed: [] });

/** Users with a role in the project (a user's `projects` maps each of its projects to its role there). */
export function assignedTo(projectId: string): Condition {
  return notNull(['projects', projectId]);
}

/** The user as a project's user operations show them: with `role`, their role in that project. */
export function presentUser(user: UserRecord, projectId: string): ProjectUser {
  const { created_at: _created, ...shown } = user;
  return { ...FRESH, ...shown, role: user.projects[projectId]! };
}

/** A user named by ID or by login. */
async function findUser({ uow }: DomainContext, idOrLogin: string): Promise<UserRecord> {
  const user = (await uow.users.get(idOrLogin)) ?? (await uow.users.getBy('login', idOrLogin));
  if (!user) throw notFound('user', idOrLogin);
  return user;
}

async function findAssigned(ctx: DomainContext, projectId: string, idOrLogin: string): Promise<UserRecord> {
  await findProject(ctx, projectId);
  const user = await findUser(ctx, idOrLogin);
  if (!Object.hasOwn(user.projects, projectId)) throw notFound('user', idOrLogin);
  return user;
}

export async function assignUser(ctx: DomainContext, projectId: string, input: Assign): Promise<UserRecord> {
  if ((input.id === undefined) === (input.login === undefined)) {
    throw invalid('invalid_payload', 'Invalid payload', 'name the user by exactly one of id and login');
  }
  await findProject(ctx, projectId);
  const user = await findUser(ctx, (input.id ?? input.login)!);
  if (Object.hasOwn(user.projects, projectId)) {
    throw new DomainError('duplicate', 'duplicate_found', 'Duplicated resource found', `User ${user.login} is already assigned to project ${projectId}`, user.id, 'user');
  }
  return ctx.uow.users.update({ ...FRESH, ...user, projects: { ...FRESH, ...user.projects, [projectId]: input.role } });
}

export async function listProjectUsers(ctx: DomainContext, projectId: string): Promise<UserRecord[]> {
  await findProject(ctx, projectId);
  return (await ctx.uow.users.query({ where: assignedTo(projectId) })).rows;
}

export async function getProjectUser(ctx: DomainContext, projectId: string, idOrLogin: string): Promise<UserRecord> {
  return findAssigned(ctx, projectId, idOrLogin);
}

export async function changeRole(ctx: DomainContext, projectId: string, idOrLogin: string, role: Role): Promise<UserRecord> {
  const user = await findAssigned(ctx, projectId, idOrLogin);
  return ctx.uow.users.update({ ...FRESH, ...user, projects: { ...FRESH, ...user.projects, [projectId]: role } });
}

export async function unassignUser(ctx: DomainContext, projectId: string, idOrLogin: string): Promise<void> {
  await findProject(ctx, projectId);
  const user = await findUser(ctx, idOrLogin);
  if (!Object.hasOwn(user.projects, projectId)) {
    throw new DomainError('invalid', 'user_not_assigned', 'User is not assigned', `User ${user.login} is not assigned to project ${projectId}`, user.id, 'user');
  }
  const { [projectId]: _dropped, ...projects } = user.projects;
  await ctx.uow.users.update({ ...FRESH, ...user, projects });
}

export async function inviteUser(ctx: DomainContext, input: Invite): Promise<UserRecord> {
  for (const projectId of Object.keys(input.projects)) await findProject(ctx, projectId);
  const user: UserRecord = {
    id: newId('user'),
    login: input.email,
    email: input.email,
    first_name: input.first_name,
    last_name: input.last_name,
    projects: { ...input.projects },
    is_owner: false,
    created_at: isoNow(ctx.clock),
  };
  return writeUnique('user', () => ctx.uow.users.insert(user));
}
