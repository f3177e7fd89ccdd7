/**
 * Projects and their server-side API keys. Both live in the organization's partition of the store, apart
 * from the projects' own data: one project's keys can only ever name that project.
 */
import { randomBytes } from 'node:crypto';
import type { components } from '../../../generated/openapi.js';
import { applyChanges } from '../changes.js';
import type { DomainContext } from '../context.js';
import { notFound } from '../errors.js';
import { newId } from '../ids.js';

export type Project = components['schemas']['Project'];
type ProjectCreate = components['schemas']['ProjectsCreateRequestBody'];
type ProjectUpdate = components['schemas']['ProjectsUpdateRequestBody'];

/** The partition that holds projects, API keys and users, which belong to the organization, not to a project. */
export const ORGANIZATION = '~organization';

export interface ApiKeyRecord {
  id: string;
  name: string;
  app_id: string;
  app_token: string;
  project_id: string;
  created_at: string;
}

export async function findProject({ uow }: DomainContext, id: string): Promise<Project> {
  const project = await uow.projects.get(id);
  if (!project) throw notFound('project', id);
  return project;
}

export async function listProjects({ uow }: DomainContext): Promise<Project[]> {
  return (await uow.projects.query({})).rows;
}

export async function createProject(ctx: DomainContext, input: ProjectCreate): Promise<{ project: Project; key: ApiKeyRecord }> {
  const project: Project = {
    id: newId('proj'),
    name: input.name,
    description: input.description ?? null,
    timezone: input.timezone ?? 'UTC',
    currency: input.currency ?? 'USD',
    created_at: ctx.clock.now().toISOString(),
    updated_at: null,
    object: 'project',
  };
  await ctx.uow.projects.insert(project);
  const key = await ctx.uow.api_keys.insert({
    id: newId('key'),
    name: 'default',
    app_id: `app_${randomBytes(12).toString('hex')}`,
    app_token: randomBytes(24).toString('hex'),
    project_id: project.id,
    created_at: project.created_at,
  });
  return { project, key };
}

/** Makes sure a project configured at start, and its key, are in the registry. */
export async function registerConfiguredKey(
  ctx: DomainContext,
  key: { name: string; appId: string; appToken: string; projectId: string },
): Promise<void> {
  const now = ctx.clock.now().toISOString();
  if (!(await ctx.uow.projects.get(key.projectId))) {
    await ctx.uow.projects.insert({
      id: key.projectId,
      name: key.projectId,
      description: null,
      timezone: 'UTC',
      currency: 'USD',
      created_at: now,
      updated_at: null,
      object: 'project',
    });
  }
  const existing = await ctx.uow.api_keys.getBy('app_id', key.appId);
  if (existing) await ctx.uow.api_keys.delete(existing.id);
  await ctx.uow.api_keys.insert({
    id: newId('key'),
    name: key.name,
    app_id: key.appId,
    app_token: key.appToken,
    project_id: key.projectId,
    created_at: now,
  });
}

export async function updateProject(ctx: DomainContext, id: string, input: ProjectUpdate): Promise<Project> {
  const project = await findProject(ctx, id);
  return ctx.uow.projects.update(applyChanges(project, input, ctx.clock.now().toISOString()));
}

/** Removes the project from the registry with its keys and its users' assignments; its data goes with the partition. */
export async function deleteProject(ctx: DomainContext, id: string): Promise<void> {
  await findProject(ctx, id);
  for (const key of await ctx.uow.api_keys.findBy('project_id', id)) await ctx.uow.api_keys.delete(key.id);
  for (const user of (await ctx.uow.users.query({ where: (user) => Object.hasOwn(user.projects, id) })).rows) {
    const { [id]: _dropped, ...projects } = user.projects;
    await ctx.uow.users.update({ ...user, projects });
  }
  await ctx.uow.projects.delete(id);
}

export async function findApiKey({ uow }: DomainContext, appId: string): Promise<ApiKeyRecord | undefined> {
  return uow.api_keys.getBy('app_id', appId);
}
