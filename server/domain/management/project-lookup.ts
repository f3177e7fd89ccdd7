/** Finding a project, apart from projects.ts: users.ts checks projects, and projects.ts assigns users. */
import type { DomainContext } from '../context.js';
import { notFound } from '../errors.js';
import type { Project } from './projects.js';

export async function findProject({ uow }: DomainContext, id: string): Promise<Project> {
  const project = await uow.projects.get(id);
  if (!project) throw notFound('project', id);
  return project;
}
