/** The management API: projects and their keys, users, branding, schemas and webhook configurations. */
import { createBrand, deleteBrand, findBrand, listBrands, updateBrand } from '../domain/management/branding.js';
import { findProject } from '../domain/management/project-lookup.js';
import { createProject, deleteProject, listProjects, updateProject } from '../domain/management/projects.js';
import {
  createCustomEventSchema,
  createMetadataSchema,
  deleteCustomEventSchema,
  deleteMetadataSchema,
  findCustomEventSchema,
  findMetadataSchema,
  listCustomEventSchemas,
  listMetadataSchemas,
  updateCustomEventSchema,
  updateMetadataSchema,
} from '../domain/management/schemas.js';
import { assignUser, changeRole, getProjectUser, inviteUser, listProjectUsers, presentUser, unassignUser } from '../domain/management/users.js';
import { createWebhook, deleteWebhook, findWebhook, listDeliveries, listWebhooks, presentWebhook, updateWebhook, vetTarget } from '../domain/management/webhooks.js';
import type { HandlersOf } from './types.js';
import { inManagedProject, inOrganization } from './unit-of-work.js';
import { FRESH } from '../store/fresh.js';

type ManagementOperations =
  | 'list-projects'
  | 'create-project'
  | 'get-project'
  | 'update-project'
  | 'delete-project'
  | 'create-brand'
  | 'list-brands'
  | 'get-brand'
  | 'update-brand'
  | 'delete-brand'
  | 'assign-user'
  | 'list-users'
  | 'get-user'
  | 'update-user'
  | 'unassign-user'
  | 'invite-user'
  | 'create-metadata-schema'
  | 'list-metadata-schemas-1'
  | 'get-metadata-schema-1'
  | 'update-metadata-schema'
  | 'delete-metadata-schema'
  | 'create-custom-event-schema'
  | 'list-custom-event-schemas'
  | 'get-custom-event-schema'
  | 'update-custom-event-schema'
  | 'delete-custom-event-schema'
  | 'create-webhook'
  | 'list-webhooks'
  | 'get-webhook'
  | 'update-webhook'
  | 'delete-webhook'
  | 'list-webhook-deliveries';

function list<T>(data: T[]) {
  return { object: 'list' as const, data_ref: 'data' as const, data, total: data.length };
}

export const managementHandlers: HandlersOf<ManagementOperations> = {
  'list-projects': async ({ services }) => ({ status: 200, body: list(await inOrganization(services, listProjects)) }),
  'create-project': async ({ body, services }) => {
    const { project, key } = await inOrganization(services, (ctx) => createProject(ctx, body));
    // The partition is made once the registry entry is committed: a SQL store's partition is a write of its own,
    // which must not wait inside the organization's unit of work (PGlite has one connection). Should it fail,
    // the next start makes it (createApp makes a partition for every registered project).
    await services.store.createProject(project.id);
    return { status: 200, body: { ...FRESH, ...project, server_side_key: { app_id: key.app_id, app_token: key.app_token } } };
  },
  'get-project': async ({ path, services }) => ({ status: 200, body: await inOrganization(services, (ctx) => findProject(ctx, path.projectId)) }),
  'update-project': async ({ path, body, services }) => ({
    status: 200,
    body: await inOrganization(services, (ctx) => updateProject(ctx, path.projectId, body)),
  }),
  'delete-project': async ({ path, services }) => {
    await inOrganization(services, (ctx) => deleteProject(ctx, path.projectId));
    services.keysChanged?.();
    await services.store.dropProject(path.projectId);
    return { status: 204 };
  },

  'create-brand': async ({ path, body, services }) => ({
    status: 200,
    body: await inManagedProject(services, path.projectId, (ctx) => createBrand(ctx, body)),
  }),
  'list-brands': async ({ path, services }) => ({ status: 200, body: list(await inManagedProject(services, path.projectId, listBrands)) }),
  'get-brand': async ({ path, services }) => ({
    status: 200,
    body: await inManagedProject(services, path.projectId, (ctx) => findBrand(ctx, path.brandingId)),
  }),
  'update-brand': async ({ path, body, services }) => ({
    status: 200,
    body: await inManagedProject(services, path.projectId, (ctx) => updateBrand(ctx, path.brandingId, body)),
  }),
  'delete-brand': async ({ path, services }) => {
    await inManagedProject(services, path.projectId, (ctx) => deleteBrand(ctx, path.brandingId));
    return { status: 204 };
  },

  'assign-user': async ({ path, body, services }) => ({
    status: 200,
    body: presentUser(await inOrganization(services, (ctx) => assignUser(ctx, path.projectId, body)), path.projectId),
  }),
  'list-users': async ({ path, services }) => ({
    status: 200,
    body: list((await inOrganization(services, (ctx) => listProjectUsers(ctx, path.projectId))).map((user) => presentUser(user, path.projectId))),
  }),
  'get-user': async ({ path, services }) => ({
    status: 200,
    body: presentUser(await inOrganization(services, (ctx) => getProjectUser(ctx, path.projectId, path.userId)), path.projectId),
  }),
  'update-user': async ({ path, body, services }) => ({
    status: 200,
    body: presentUser(await inOrganization(services, (ctx) => changeRole(ctx, path.projectId, path.userId, body.role)), path.projectId),
  }),
  'unassign-user': async ({ path, services }) => {
    await inOrganization(services, (ctx) => unassignUser(ctx, path.projectId, path.userId));
    return { status: 204 };
  },
  'invite-user': async ({ body, services }) => {
    await inOrganization(services, (ctx) => inviteUser(ctx, body));
    return { status: 204 };
  },

  'create-metadata-schema': async ({ path, body, services }) => ({
    status: 200,
    body: await inManagedProject(services, path.projectId, (ctx) => createMetadataSchema(ctx, body)),
  }),
  'list-metadata-schemas-1': async ({ path, services }) => {
    return { status: 200, body: list(await inManagedProject(services, path.projectId, listMetadataSchemas)) };
  },
  'get-metadata-schema-1': async ({ path, services }) => ({
    status: 200,
    body: await inManagedProject(services, path.projectId, (ctx) => findMetadataSchema(ctx, path.metadataSchemaId)),
  }),
  'update-metadata-schema': async ({ path, body, services }) => ({
    status: 200,
    body: await inManagedProject(services, path.projectId, (ctx) => updateMetadataSchema(ctx, path.metadataSchemaId, body)),
  }),
  'delete-metadata-schema': async ({ path, services }) => {
    await inManagedProject(services, path.projectId, (ctx) => deleteMetadataSchema(ctx, path.metadataSchemaId));
    return { status: 204 };
  },

  'create-custom-event-schema': async ({ path, body, services }) => ({
    status: 200,
    body: await inManagedProject(services, path.projectId, (ctx) => createCustomEventSchema(ctx, body)),
  }),
  'list-custom-event-schemas': async ({ path, services }) => ({
    status: 200,
    body: list(await inManagedProject(services, path.projectId, listCustomEventSchemas)),
  }),
  'get-custom-event-schema': async ({ path, services }) => ({
    status: 200,
    body: await inManagedProject(services, path.projectId, (ctx) => findCustomEventSchema(ctx, path.customEventSchemaId)),
  }),
  'update-custom-event-schema': async ({ path, body, services }) => ({
    status: 200,
    body: await inManagedProject(services, path.projectId, (ctx) => updateCustomEventSchema(ctx, path.customEventSchemaId, body)),
  }),
  'delete-custom-event-schema': async ({ path, services }) => {
    await inManagedProject(services, path.projectId, (ctx) => deleteCustomEventSchema(ctx, path.customEventSchemaId));
    return { status: 204 };
  },

  // The target's host is resolved before the unit of work starts: a lookup may take seconds, and the unit of
  // work holds the project's lock.
  'create-webhook': async ({ path, body, services }) => {
    const target = await vetTarget(body.target_url, services.webhookRules);
    const made = await inManagedProject(services, path.projectId, (ctx) => createWebhook(ctx, body, target));
    return { status: 200, body: presentWebhook(made, { revealSecret: true }) };
  },
  'list-webhooks': async ({ path, services }) => ({
    status: 200,
    body: list((await inManagedProject(services, path.projectId, listWebhooks)).map((webhook) => presentWebhook(webhook))),
  }),
  'get-webhook': async ({ path, services }) => ({
    status: 200,
    body: presentWebhook(await inManagedProject(services, path.projectId, (ctx) => findWebhook(ctx, path.webhookId))),
  }),
  'update-webhook': async ({ path, body, services }) => {
    const target = body.target_url === undefined ? undefined : await vetTarget(body.target_url, services.webhookRules);
    const updated = await inManagedProject(services, path.projectId, (ctx) => updateWebhook(ctx, path.webhookId, body, target));
    return { status: 200, body: presentWebhook(updated) };
  },
  'delete-webhook': async ({ path, services }) => {
    await inManagedProject(services, path.projectId, (ctx) => deleteWebhook(ctx, path.webhookId));
    return { status: 204 };
  },
  'list-webhook-deliveries': async ({ path, query, services }) => {
    const page = { limit: query.limit ?? 10, page: query.page ?? 1 };
    const { rows, total } = await inManagedProject(services, path.projectId, (ctx) => listDeliveries(ctx, path.webhookId, page));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: rows, total } };
  },
};
