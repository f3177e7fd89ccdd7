/**
 * Projects and their server-side API keys. Both live in the organization's partition of the store, apart
 * from the projects' own data: one project's keys can only ever name that project.
 */
import { randomBytes } from 'node:crypto';
import type { components } from '../../../generated/openapi.js';
import { applyChanges } from '../changes.js';
import type { DomainContext } from '../context.js';
import { newId } from '../ids.js';
import { findProject } from './project-lookup.js';
import { assignedTo, assignUser } from './users.js';
import { table } from '../../store/schema.js';
import { FRESH } from '../../store/fresh.js';
import { isoNow } from '../clock.js';

/** A project as stored: the published shape, with the timestamps and `object` the reference server always keeps. */
export type Project = components['schemas']['Project'] & { created_at: string; updated_at: string | null; object: 'project' };

export const PROJECTS_TABLE = table<Project>({ unique: [], indexed: [] });
type ProjectCreate = components['schemas']['ProjectsCreateRequestBody'];
type ProjectUpdate = components['schemas']['ProjectsUpdateRequestBody'];
type UsageAlerts = Project['api_usage_notifications'];
type CalloutNotifications = Project['webhooks_callout_notifications'];

/** The one cluster the reference server runs. */
const CLUSTER = 'local';

const alertOff = () => ({ enabled: false, value: 80, in_app: false, emails: [] as string[] });
const calloutsOff = () => ({ email: false, in_app: false, emails: [] as string[] });

/** A new project's settings: every client-side switch on (this server serves them all), alerts and notifications off. */
function newProject(id: string, input: ProjectCreate, now: string): Project {
  const usage: UsageAlerts = {
    redemptions: alertOff(),
    messages: alertOff(),
    api_calls: alertOff(),
    bulk_api_calls: alertOff(),
    webhook_calls: alertOff(),
    cycle_calls: alertOff(),
  };
  const callouts: CalloutNotifications = { distributions: calloutsOff(), webhooks: calloutsOff() };
  return {
    id,
    name: input.name,
    description: input.description ?? null,
    timezone: input.timezone ?? 'UTC',
    currency: input.currency ?? 'USD',
    dial_code: input.dial_code ?? null,
    webhook_version: input.webhook_version ?? 'v2024-01-01',
    client_trusted_domains: input.client_trusted_domains ?? [],
    client_redeem_enabled: input.client_redeem_enabled ?? true,
    client_publish_enabled: input.client_publish_enabled ?? true,
    client_list_vouchers_enabled: input.client_list_vouchers_enabled ?? true,
    client_create_customer_enabled: input.client_create_customer_enabled ?? true,
    client_loyalty_events_enabled: input.client_loyalty_events_enabled ?? true,
    client_set_voucher_expiration_date_enabled: input.client_set_voucher_expiration_date_enabled ?? true,
    webhooks_callout_notifications: mergeSettings(callouts, input.webhooks_callout_notifications),
    api_usage_notifications: mergeSettings(usage, input.api_usage_notifications),
    cluster_id: input.cluster_id ?? CLUSTER,
    case_sensitive_codes: input.case_sensitive_codes ?? true,
    api_version: input.api_version ?? 'v2018-08-01',
    is_sandbox: false,
    webhook_token: `whtok_${randomBytes(16).toString('hex')}`,
    ...(input.default_code_config && { default_code_config: input.default_code_config }),
    created_at: now,
    updated_at: null,
    object: 'project',
  };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Settings changed field by field: nested objects merge, everything else given replaces what was there. */
function mergeSettings<T extends object>(current: T, changes: object | null | undefined): T {
  if (!changes) return current;
  const merged = { ...current } as Record<string, unknown>;
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    const before = merged[key];
    merged[key] = isPlainObject(before) && isPlainObject(value) ? mergeSettings<Record<string, unknown>>(before, value) : value;
  }
  return merged as T;
}

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

export const API_KEYS_TABLE = table<ApiKeyRecord>({ unique: ['app_id'], indexed: ['project_id'] });

export async function listProjects({ uow }: DomainContext): Promise<Project[]> {
  return (await uow.projects.query({})).rows;
}

export async function createProject(ctx: DomainContext, input: ProjectCreate): Promise<{ project: Project; key: ApiKeyRecord }> {
  const project = newProject(newId('proj'), input, isoNow(ctx.clock));
  await ctx.uow.projects.insert(project);
  for (const user of input.users ?? []) await assignUser(ctx, project.id, user);
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
  const now = isoNow(ctx.clock);
  if (!(await ctx.uow.projects.get(key.projectId))) {
    await ctx.uow.projects.insert(newProject(key.projectId, { name: key.projectId }, now));
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

/**
 * Fields left out keep their values; the notification objects and the code defaults change field by field.
 * Server-owned fields of a project sent back whole never reach here: the contract's pruner drops them.
 */
export async function updateProject(ctx: DomainContext, id: string, input: ProjectUpdate): Promise<Project> {
  const project = await findProject(ctx, id);
  const { webhooks_callout_notifications: callouts, api_usage_notifications: usage, default_code_config: codes, ...plain } = input;
  const updated = applyChanges(project, plain, isoNow(ctx.clock));
  return ctx.uow.projects.update({
    ...FRESH,
    ...updated,
    webhooks_callout_notifications: mergeSettings(project.webhooks_callout_notifications, callouts),
    api_usage_notifications: mergeSettings(project.api_usage_notifications, usage),
    ...((codes ?? project.default_code_config) && { default_code_config: mergeSettings(project.default_code_config ?? {}, codes) }),
  });
}

/** Removes the project from the registry with its keys and its users' assignments; its data goes with the partition. */
export async function deleteProject(ctx: DomainContext, id: string): Promise<void> {
  await findProject(ctx, id);
  for (const key of await ctx.uow.api_keys.findBy('project_id', id)) await ctx.uow.api_keys.delete(key.id);
  for (const user of (await ctx.uow.users.query({ where: assignedTo(id) })).rows) {
    const { [id]: _dropped, ...projects } = user.projects;
    await ctx.uow.users.update({ ...FRESH, ...user, projects });
  }
  await ctx.uow.projects.delete(id);
}

export async function findApiKey({ uow }: DomainContext, appId: string): Promise<ApiKeyRecord | undefined> {
  return uow.api_keys.getBy('app_id', appId);
}
