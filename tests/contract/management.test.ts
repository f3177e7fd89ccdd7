/**
 * The management API: its own credentials, projects whose keys reach only their own data, branding,
 * users, metadata and custom event schemas, and webhook configurations.
 */
import { describe, expect, test } from '@jest/globals';
import { createApp } from '../../server/app.js';
import { systemClock } from '../../server/domain/clock.js';
import { MemoryStore } from '../../server/store/memory.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { expectError, failed } from './expect-error.js';
import { because, clientFor, listen, managementClientFor, raw, runsWith, secret, skip, unique, useTarget, type Target } from './target.js';

const ctx = useTarget();
const describeManaged = runsWith(describe, ['management']);

const mgmt = () => managementClientFor(ctx.target);

async function newProject(name = unique('Project')) {
  const made = await mgmt().POST('/management/v1/projects', { body: { name, currency: 'EUR', timezone: 'Europe/Warsaw' } });
  expect(made.response.status).toBe(200);
  return made.data!;
}

function projectPath(projectId: string) {
  return { params: { path: { projectId } } };
}

describeManaged('management credentials', () => {
  test('when the management key is missing, wrong, or a project API key, then 401; the management key does not open /v1', async () => {
    expectError(await raw(ctx.target, 'GET', '/management/v1/projects', { credentials: null }), 401, 'unauthorized');
    expectError(await raw(ctx.target, 'GET', '/management/v1/projects', { credentials: ctx.target.credentials }), 401, 'unauthorized');
    const wrongToken = managementClientFor(ctx.target, { id: ctx.target.management!.id, token: 'not-the-token' });
    expectError(failed(await wrongToken.GET('/management/v1/projects')), 401, 'unauthorized');
    const wrongId = managementClientFor(ctx.target, { id: 'someone-else', token: ctx.target.management!.token });
    expectError(failed(await wrongId.GET('/management/v1/projects')), 401, 'unauthorized');
    expectError(failed(await mgmt().GET('/v1/products')), 401, 'unauthorized');
  });

  test('when the server has no management key configured, then every management call is 401', async () => {
    if (!ctx.target.inProcess) return skip(because('inProcess'));
    const app = await createApp({ store: new MemoryStore(SCHEMA), clock: systemClock, apiKeys: [], validateResponses: true });
    const { server, baseUrl } = await listen(app);
    try {
      const target: Target = { ...ctx.target, baseUrl };
      expectError(await raw(target, 'GET', '/management/v1/projects'), 401, 'unauthorized');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describeManaged('projects', () => {
  test('when a project is created, then its key works on /v1 for that project, and it reads back, lists, updates', async () => {
    const made = await newProject();
    const alertOff = { enabled: false, value: 80, in_app: false, emails: [] };
    const calloutOff = { email: false, in_app: false, emails: [] };
    expect(made).toEqual({
      id: expect.stringMatching(/^proj_/),
      name: expect.any(String),
      description: null,
      timezone: 'Europe/Warsaw',
      currency: 'EUR',
      dial_code: null,
      webhook_version: 'v2024-01-01',
      client_trusted_domains: [],
      client_redeem_enabled: true,
      client_publish_enabled: true,
      client_list_vouchers_enabled: true,
      client_create_customer_enabled: true,
      client_loyalty_events_enabled: true,
      client_set_voucher_expiration_date_enabled: true,
      webhooks_callout_notifications: { distributions: calloutOff, webhooks: calloutOff },
      api_usage_notifications: {
        redemptions: alertOff,
        messages: alertOff,
        api_calls: alertOff,
        bulk_api_calls: alertOff,
        webhook_calls: alertOff,
        cycle_calls: alertOff,
      },
      cluster_id: 'local',
      case_sensitive_codes: true,
      api_version: 'v2018-08-01',
      is_sandbox: false,
      webhook_token: expect.stringMatching(/^whtok_/),
      created_at: expect.any(String),
      updated_at: null,
      object: 'project',
      server_side_key: { app_id: expect.any(String), app_token: expect.any(String) },
    });
    const { server_side_key: key, ...project } = made;
    const client = clientFor(ctx.target, { appId: key!.app_id, appToken: key!.app_token });
    const product = await client.POST('/v1/products', { body: { name: 'Tea', source_id: 'tea' } });
    expect(product.response.status).toBe(200);
    expect((await client.GET('/v1/products')).data?.total).toBe(1);

    expect((await mgmt().GET('/management/v1/projects/{projectId}', projectPath(project.id))).data).toEqual(project);
    const listed = (await mgmt().GET('/management/v1/projects')).data!;
    expect(listed).toMatchObject({ object: 'list', data_ref: 'data', total: listed.data.length });
    expect(listed.data).toContainEqual(project);
    expect(JSON.stringify(listed)).not.toContain(key!.app_token);

    const updated = await mgmt().PUT('/management/v1/projects/{projectId}', { ...projectPath(project.id), body: { description: 'Tea shop', currency: 'PLN' } });
    expect(updated.data).toEqual({ ...project, description: 'Tea shop', currency: 'PLN', updated_at: expect.any(String) });
  });

  test('when a project is created with its settings and users, then they are stored, and updates change them field by field', async () => {
    const login = `${unique('owner').toLowerCase()}@coffee.example.com`;
    const first = await newProject();
    await mgmt().POST('/management/v1/projects/users/invite', { body: { email: login, first_name: 'Ola', last_name: 'Nowak', projects: { [first.id]: 'VIEWER' } } });
    const made = await mgmt().POST('/management/v1/projects', {
      body: {
        name: unique('Configured'),
        case_sensitive_codes: false,
        dial_code: '+48',
        client_trusted_domains: ['shop.coffee.example.com'],
        client_redeem_enabled: false,
        cluster_id: 'eu1',
        webhooks_callout_notifications: { webhooks: { email: true, emails: ['ops@coffee.example.com'] } },
        api_usage_notifications: { api_calls: { enabled: true, value: 70 } },
        default_code_config: { charset: 'ABCDEF123456' },
        users: [{ login, role: 'ADMIN' }],
      },
    });
    expect(made.response.status).toBe(200);
    const project = made.data!;
    expect(project).toMatchObject({
      case_sensitive_codes: false,
      dial_code: '+48',
      client_trusted_domains: ['shop.coffee.example.com'],
      client_redeem_enabled: false,
      client_publish_enabled: true,
      cluster_id: 'eu1',
      webhooks_callout_notifications: {
        distributions: { email: false, in_app: false, emails: [] },
        webhooks: { email: true, in_app: false, emails: ['ops@coffee.example.com'] },
      },
      api_usage_notifications: { api_calls: { enabled: true, value: 70, in_app: false, emails: [] }, messages: { enabled: false, value: 80 } },
      default_code_config: { charset: 'ABCDEF123456' },
    });
    const users = await mgmt().GET('/management/v1/projects/{projectId}/users', projectPath(project.id));
    expect(users.data?.data).toEqual([expect.objectContaining({ login, role: 'ADMIN', projects: { [first.id]: 'VIEWER', [project.id]: 'ADMIN' } })]);

    const updated = await mgmt().PUT('/management/v1/projects/{projectId}', {
      ...projectPath(project.id),
      body: { dial_code: null, description: null, api_usage_notifications: { api_calls: { value: 90 } }, client_trusted_domains: [] },
    });
    expect(updated.data?.dial_code).toBeNull();
    expect(updated.data?.client_trusted_domains).toEqual([]);
    expect(updated.data?.api_usage_notifications.api_calls).toEqual({ enabled: true, value: 90, in_app: false, emails: [] });
    expect(updated.data?.webhooks_callout_notifications).toEqual(project.webhooks_callout_notifications);

    const unknownUser = await raw(ctx.target, 'POST', '/management/v1/projects', { body: JSON.stringify({ name: unique('NoUser'), users: [{ login: 'nobody@example.com', role: 'USER' }] }) });
    expectError(unknownUser, 404, 'not_found');
  });

  test('when a whole project as GET returns it is PUT back, then it is accepted and only updated_at changes', async () => {
    const { id } = await newProject();
    const before = (await mgmt().GET('/management/v1/projects/{projectId}', projectPath(id))).data!;
    const put = await raw(ctx.target, 'PUT', `/management/v1/projects/${id}`, { body: JSON.stringify(before) });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ ...before, updated_at: expect.any(String) });
    expect((await mgmt().GET('/management/v1/projects/{projectId}', projectPath(id))).data).toEqual(put.body);
  });

  test('when a project is deleted, then its key stops working and the project is gone', async () => {
    const { server_side_key: key, ...project } = await newProject();
    const client = clientFor(ctx.target, { appId: key!.app_id, appToken: key!.app_token });
    expect((await client.GET('/v1/products')).response.status).toBe(200);
    expect((await mgmt().DELETE('/management/v1/projects/{projectId}', projectPath(project.id))).response.status).toBe(204);
    expectError(failed(await client.GET('/v1/products')), 401, 'unauthorized');
    expectError(failed(await mgmt().GET('/management/v1/projects/{projectId}', projectPath(project.id))), 404, 'not_found');
    expectError(failed(await mgmt().DELETE('/management/v1/projects/{projectId}', projectPath(project.id))), 404, 'not_found');
    expectError(failed(await mgmt().GET('/management/v1/projects/{projectId}/webhooks', projectPath(project.id))), 404, 'not_found');
  });

  test.each([
    ['no name', {}],
    ['an empty name', { name: '' }],
    ['a lowercase currency', { name: 'x', currency: 'eur' }],
    ['a malformed time zone', { name: 'x', timezone: 'not a zone' }],
    ['a usage alert below 10%', { name: 'x', api_usage_notifications: { api_calls: { value: 5 } } }],
    ['an unknown webhook version', { name: 'x', webhook_version: 'v2020-01-01' }],
    ['a user with no role', { name: 'x', users: [{ login: 'a@example.com' }] }],
  ])('when creating a project with %s, then 400 invalid_payload', async (_, body) => {
    expectError(await raw(ctx.target, 'POST', '/management/v1/projects', { body: JSON.stringify(body) }), 400, 'invalid_payload');
  });

  test('when updating with nothing or an unknown project, then 400 or 404', async () => {
    const { id } = await newProject();
    expectError(await raw(ctx.target, 'PUT', `/management/v1/projects/${id}`, { body: '{}' }), 400, 'invalid_payload');
    const missing = expectError(await raw(ctx.target, 'PUT', '/management/v1/projects/proj_missing', { body: '{"name":"x"}' }), 404, 'not_found');
    expect(missing.resource_type).toBe('project');
  });
});

describeManaged('project isolation', () => {
  test("when two projects are made, then neither's key reads or writes the other's data", async () => {
    const a = await newProject();
    const b = await newProject();
    const clientA = clientFor(ctx.target, { appId: a.server_side_key!.app_id, appToken: a.server_side_key!.app_token });
    const clientB = clientFor(ctx.target, { appId: b.server_side_key!.app_id, appToken: b.server_side_key!.app_token });
    const product = (await clientA.POST('/v1/products', { body: { name: 'Only in A', source_id: 'only-a' } })).data!;
    const customer = (await clientA.POST('/v1/customers', { body: { source_id: 'shared-source', name: 'A' } })).data!;
    const path = { params: { path: { productId: product.id } } };

    expectError(failed(await clientB.GET('/v1/products/{productId}', path)), 404, 'not_found');
    expectError(failed(await clientB.PUT('/v1/products/{productId}', { ...path, body: { name: 'taken over' } })), 404, 'not_found');
    expectError(failed(await clientB.DELETE('/v1/products/{productId}', path)), 404, 'not_found');
    expectError(failed(await clientB.GET('/v1/customers/{customerId}', { params: { path: { customerId: customer.id! } } })), 404, 'not_found');
    expect((await clientB.GET('/v1/products')).data?.total).toBe(0);
    // The same source_id is free in the other project: nothing is shared.
    expect((await clientB.POST('/v1/customers', { body: { source_id: 'shared-source', name: 'B' } })).response.status).toBe(200);

    expect((await clientA.GET('/v1/products/{productId}', path)).data?.name).toBe('Only in A');
    expect((await clientA.GET('/v1/customers/{customerId}', { params: { path: { customerId: customer.id! } } })).data?.name).toBe('A');

    const schema = await mgmt().POST('/management/v1/projects/{projectId}/metadata-schemas', {
      ...projectPath(a.id),
      body: { related_object: 'product', properties: { origin: { type: 'string' } } },
    });
    expect(schema.response.status).toBe(200);
    // Project B sees only its own, standard and empty, product schema.
    const seenByB = await clientB.GET('/v1/metadata-schemas/{resource}', { params: { path: { resource: 'product' } } });
    expect(seenByB.data).toMatchObject({ related_object: 'product', properties: {} });
    expect(seenByB.data?.id).not.toBe(schema.data!.id);
    expect((await clientA.GET('/v1/metadata-schemas/{resource}', { params: { path: { resource: 'product' } } })).data?.id).toBe(schema.data!.id);
    const schemaPath = { params: { path: { projectId: b.id, metadataSchemaId: schema.data!.id } } };
    expectError(failed(await mgmt().GET('/management/v1/projects/{projectId}/metadata-schemas/{metadataSchemaId}', schemaPath)), 404, 'not_found');
  });

  test('when the suite has a second configured project, then its key cannot see the first one\'s objects', async () => {
    if (!ctx.target.otherProject) return skip(because('otherProject'));
    const mine = (await ctx.client.POST('/v1/categories', { body: { name: unique('Mine'), hierarchy: 1 } })).data!;
    const other = clientFor(ctx.target, ctx.target.otherProject);
    expectError(failed(await other.GET('/v1/categories/{categoryId}', { params: { path: { categoryId: mine.id } } })), 404, 'not_found');
  });
});

describeManaged('branding', () => {
  const body = {
    brand: { name: 'Coffee & Co', website_url: 'https://coffee.example.com', permission_reminder: 'You joined our program.' },
    address: { street: '1 Market Street', city: 'Warsaw', postal: '00-001', country: 'Poland' },
    contact: { email: 'hello@coffee.example.com' },
  };

  test('when a brand is created without cockpits, then it has every field and the default cockpits; a second is 409', async () => {
    const { id: projectId } = await newProject();
    const made = await mgmt().POST('/management/v1/projects/{projectId}/branding', { ...projectPath(projectId), body });
    expect(made.data).toEqual({
      id: expect.stringMatching(/^brd_/),
      brand: { ...body.brand, privacy_policy_url: null, terms_of_use_url: null },
      address: { ...body.address, state: null },
      contact: { email: 'hello@coffee.example.com', phone: null },
      cockpits: {
        campaigns_overview_enabled: false,
        loyalty_enabled: false,
        gift_cards_enabled: false,
        coupons_enabled: false,
        referrals_enabled: false,
        theme: 'default',
        use_custom_double_opt_in_redirect_url: false,
        custom_double_opt_in_redirect_url: null,
      },
      created_at: expect.any(String),
      updated_at: null,
    });
    expectError(failed(await mgmt().POST('/management/v1/projects/{projectId}/branding', { ...projectPath(projectId), body })), 409, 'duplicate_found');

    const path = { params: { path: { projectId, brandingId: made.data!.id } } };
    expect((await mgmt().GET('/management/v1/projects/{projectId}/branding/{brandingId}', path)).data).toEqual(made.data);
    expect((await mgmt().GET('/management/v1/projects/{projectId}/branding', projectPath(projectId))).data).toEqual({
      object: 'list',
      data_ref: 'data',
      data: [made.data],
      total: 1,
    });
    const updated = await mgmt().PUT('/management/v1/projects/{projectId}/branding/{brandingId}', {
      ...path,
      body: { contact: { phone: '+48 22 000 00 00' }, cockpits: { loyalty_enabled: true, theme: 'dark' } },
    });
    expect(updated.data).toEqual({
      ...made.data,
      contact: { email: 'hello@coffee.example.com', phone: '+48 22 000 00 00' },
      cockpits: { ...made.data!.cockpits, loyalty_enabled: true, theme: 'dark' },
      updated_at: expect.any(String),
    });
    expect((await mgmt().DELETE('/management/v1/projects/{projectId}/branding/{brandingId}', path)).response.status).toBe(204);
    expectError(failed(await mgmt().GET('/management/v1/projects/{projectId}/branding/{brandingId}', path)), 404, 'not_found');
    expect((await mgmt().POST('/management/v1/projects/{projectId}/branding', { ...projectPath(projectId), body })).response.status).toBe(200);
  });

  test('when a whole brand as GET returns it is PUT back, then it is accepted and only updated_at changes; nulls clear fields', async () => {
    const { id: projectId } = await newProject();
    const made = (await mgmt().POST('/management/v1/projects/{projectId}/branding', { ...projectPath(projectId), body })).data!;
    const path = { params: { path: { projectId, brandingId: made.id } } };
    const put = await raw(ctx.target, 'PUT', `/management/v1/projects/${projectId}/branding/${made.id}`, { body: JSON.stringify(made) });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ ...made, updated_at: expect.any(String) });
    const cleared = await mgmt().PUT('/management/v1/projects/{projectId}/branding/{brandingId}', {
      ...path,
      body: { brand: { website_url: null, permission_reminder: null }, address: { street: null } },
    });
    expect(cleared.data).toMatchObject({ brand: { name: body.brand.name, website_url: null, permission_reminder: null }, address: { street: null, city: 'Warsaw' } });
  });

  test.each([
    ['a malformed email', { ...body, contact: { email: 'not-an-email' } }],
    ['a malformed website URL', { ...body, brand: { ...body.brand, website_url: 'coffee dot com' } }],
    ['a non-web privacy policy URL', { ...body, brand: { ...body.brand, privacy_policy_url: 'ftp://coffee.example.com/privacy' } }],
    ['a malformed redirect URL', { ...body, cockpits: { custom_double_opt_in_redirect_url: 'nowhere' } }],
    ['no brand name', { ...body, brand: { website_url: 'https://coffee.example.com' } }],
    ['no address', { brand: body.brand, contact: body.contact }],
  ])('when the brand has %s, then 400 invalid_payload', async (_, bad) => {
    const { id } = await newProject();
    expectError(await raw(ctx.target, 'POST', `/management/v1/projects/${id}/branding`, { body: JSON.stringify(bad) }), 400, 'invalid_payload');
  });

  test('when the project or brand does not exist, then 404', async () => {
    expectError(await raw(ctx.target, 'POST', '/management/v1/projects/proj_missing/branding', { body: JSON.stringify(body) }), 404, 'not_found');
    const { id } = await newProject();
    expectError(await raw(ctx.target, 'PUT', `/management/v1/projects/${id}/branding/brd_missing`, { body: '{"contact":{"phone":null}}' }), 404, 'not_found');
    expectError(await raw(ctx.target, 'DELETE', `/management/v1/projects/${id}/branding/brd_missing`), 404, 'not_found');
  });
});

describeManaged('users', () => {
  async function invitee(projects: Record<string, string>) {
    const email = `${unique('user')}@coffee.example.com`;
    const invited = await mgmt().POST('/management/v1/projects/users/invite', { body: { email, first_name: 'Alex', last_name: 'Doe', projects } });
    expect(invited.response.status).toBe(204);
    return email;
  }

  test('when a user is invited, assigned by id or login, re-roled and unassigned, then each step reads back', async () => {
    const home = await newProject();
    const other = await newProject();
    const login = await invitee({ [home.id]: 'ADMIN' });
    const users = (await mgmt().GET('/management/v1/projects/{projectId}/users', projectPath(home.id))).data!;
    expect(users).toMatchObject({ object: 'list', data_ref: 'data', total: 1 });
    const [user] = users.data;
    expect(user).toEqual({
      id: expect.stringMatching(/^user_/),
      login,
      email: login,
      first_name: 'Alex',
      last_name: 'Doe',
      projects: { [home.id]: 'ADMIN' },
      is_owner: false,
      role: 'ADMIN',
    });

    const byLogin = await mgmt().POST('/management/v1/projects/{projectId}/users', { ...projectPath(other.id), body: { role: 'VIEWER', login } });
    expect(byLogin.data?.projects).toEqual({ [home.id]: 'ADMIN', [other.id]: 'VIEWER' });
    // `role` is the user's role in the project the path names.
    expect(byLogin.data?.role).toBe('VIEWER');
    const userPath = { params: { path: { projectId: other.id, userId: user!.id } } };
    expect((await mgmt().GET('/management/v1/projects/{projectId}/users/{userId}', userPath)).data).toEqual(byLogin.data);
    const byLoginPath = { params: { path: { projectId: other.id, userId: login } } };
    expect((await mgmt().GET('/management/v1/projects/{projectId}/users/{userId}', byLoginPath)).data?.id).toBe(user!.id);

    const changed = await mgmt().PUT('/management/v1/projects/{projectId}/users/{userId}', { ...userPath, body: { role: 'role_custom01' } });
    expect(changed.data?.projects).toEqual({ [home.id]: 'ADMIN', [other.id]: 'role_custom01' });
    expect(changed.data?.role).toBe('role_custom01');
    expectError(
      failed(await mgmt().POST('/management/v1/projects/{projectId}/users', { ...projectPath(other.id), body: { role: 'USER', id: user!.id } })),
      409,
      'duplicate_found',
    );

    expect((await mgmt().DELETE('/management/v1/projects/{projectId}/users/{userId}', userPath)).response.status).toBe(204);
    expectError(failed(await mgmt().GET('/management/v1/projects/{projectId}/users/{userId}', userPath)), 404, 'not_found');
    expectError(failed(await mgmt().DELETE('/management/v1/projects/{projectId}/users/{userId}', userPath)), 400, 'user_not_assigned');
    const byId = await mgmt().POST('/management/v1/projects/{projectId}/users', { ...projectPath(other.id), body: { role: 'MERCHANT', id: user!.id } });
    expect(byId.data?.projects[other.id]).toBe('MERCHANT');
  });

  test.each([
    ['both id and login', { role: 'USER', id: 'user_x', login: 'x@example.com' }],
    ['neither id nor login', { role: 'USER' }],
    ['no role', { login: 'x@example.com' }],
    ['an unknown role', { role: 'SUPERUSER', login: 'x@example.com' }],
    ['an empty login', { role: 'USER', login: '' }],
  ])('when assigning with %s, then 400 invalid_payload', async (_, body) => {
    const { id } = await newProject();
    expectError(await raw(ctx.target, 'POST', `/management/v1/projects/${id}/users`, { body: JSON.stringify(body) }), 400, 'invalid_payload');
  });

  test('when the user, the project or the invitation is wrong, then 404, 409 or 400', async () => {
    const { id } = await newProject();
    const unknown = expectError(
      await raw(ctx.target, 'POST', `/management/v1/projects/${id}/users`, { body: '{"role":"USER","login":"nobody@example.com"}' }),
      404,
      'not_found',
    );
    expect(unknown.resource_type).toBe('user');
    expectError(await raw(ctx.target, 'GET', '/management/v1/projects/proj_missing/users'), 404, 'not_found');
    const login = await invitee({ [id]: 'USER' });
    const again = { email: login, first_name: 'A', last_name: 'B', projects: { [id]: 'USER' } };
    expectError(await raw(ctx.target, 'POST', '/management/v1/projects/users/invite', { body: JSON.stringify(again) }), 409, 'duplicate_found');
    const nowhere = { email: `${unique('u')}@example.com`, first_name: 'A', last_name: 'B', projects: { proj_missing: 'USER' } };
    expectError(await raw(ctx.target, 'POST', '/management/v1/projects/users/invite', { body: JSON.stringify(nowhere) }), 404, 'not_found');
    const badEmail = { ...nowhere, email: 'not an email', projects: { [id]: 'USER' } };
    expectError(await raw(ctx.target, 'POST', '/management/v1/projects/users/invite', { body: JSON.stringify(badEmail) }), 400, 'invalid_payload');
    expectError(await raw(ctx.target, 'PUT', `/management/v1/projects/${id}/users/${login}`, { body: '{"role":"OWNER"}' }), 400, 'invalid_payload');
  });
});

describeManaged('metadata schemas', () => {
  test('when a schema is created, updated and deleted, then the management and public reads follow it', async () => {
    const project = await newProject();
    const client = clientFor(ctx.target, { appId: project.server_side_key!.app_id, appToken: project.server_side_key!.app_token });
    const made = await mgmt().POST('/management/v1/projects/{projectId}/metadata-schemas', {
      ...projectPath(project.id),
      body: { related_object: 'customer', properties: { tier: { type: 'string', optional: false, eq: ['gold', 'silver'] } } },
    });
    expect(made.data).toEqual({
      id: expect.stringMatching(/^ms_/),
      related_object: 'customer',
      // Left-out flags come back with their defaults.
      properties: { tier: { type: 'string', array: false, optional: false, eq: ['gold', 'silver'] } },
      allow_defined_only: false,
      created_at: expect.any(String),
      updated_at: null,
      object: 'metadata_schema',
    });
    expect((await client.GET('/v1/metadata-schemas/{resource}', { params: { path: { resource: 'customer' } } })).data).toEqual(made.data);
    // The public list always has the standard resources; the ones the project has defined come last.
    const listed = (await client.GET('/v1/metadata-schemas')).data!;
    expect(listed).toMatchObject({ object: 'list', data_ref: 'schemas', total: 12 });
    expect(listed.schemas!.at(-1)).toEqual(made.data);
    expectError(
      failed(
        await mgmt().POST('/management/v1/projects/{projectId}/metadata-schemas', {
          ...projectPath(project.id),
          body: { related_object: 'customer', properties: {} },
        }),
      ),
      409,
      'duplicate_found',
    );

    const path = { params: { path: { projectId: project.id, metadataSchemaId: made.data!.id } } };
    const updated = await mgmt().PUT('/management/v1/projects/{projectId}/metadata-schemas/{metadataSchemaId}', {
      ...path,
      body: { allow_defined_only: true, properties: { tier: null, visits: { type: 'number', min: 0 } } },
    });
    expect(updated.data).toEqual({
      ...made.data,
      allow_defined_only: true,
      properties: { visits: { type: 'number', array: false, optional: true, min: 0 } },
      updated_at: expect.any(String),
    });
    // The management API lists them in `data`, while the public /v1/metadata-schemas uses `schemas`.
    expect((await mgmt().GET('/management/v1/projects/{projectId}/metadata-schemas', projectPath(project.id))).data).toEqual({
      object: 'list',
      data_ref: 'data',
      data: [updated.data],
      total: 1,
    });
    expect((await mgmt().DELETE('/management/v1/projects/{projectId}/metadata-schemas/{metadataSchemaId}', path)).response.status).toBe(204);
    expectError(failed(await mgmt().GET('/management/v1/projects/{projectId}/metadata-schemas/{metadataSchemaId}', path)), 404, 'not_found');
    // A standard resource never disappears: without a definition it is empty again.
    const standard = await client.GET('/v1/metadata-schemas/{resource}', { params: { path: { resource: 'customer' } } });
    expect(standard.data).toMatchObject({ related_object: 'customer', properties: {}, object: 'metadata_schema' });
  });

  test.each([
    ['no related_object', { properties: {} }],
    ['an unknown property type', { related_object: 'customer', properties: { a: { type: 'money' } } }],
    ['a constraint of the wrong type', { related_object: 'customer', properties: { a: { type: 'string', exactLength: 'six' } } }],
    ['a malformed resource name', { related_object: 'Customer Record', properties: {} }],
  ])('when a schema has %s, then 400 invalid_payload', async (_, body) => {
    const { id } = await newProject();
    expectError(await raw(ctx.target, 'POST', `/management/v1/projects/${id}/metadata-schemas`, { body: JSON.stringify(body) }), 400, 'invalid_payload');
  });

  test('when a custom resource name has a hyphen, as the public API allows, then its schema is made and read by that name', async () => {
    const project = await newProject();
    const made = await mgmt().POST('/management/v1/projects/{projectId}/metadata-schemas', {
      ...projectPath(project.id),
      body: { related_object: 'delivery-slot', properties: { window: { type: 'string' } } },
    });
    expect(made.response.status).toBe(200);
    expect(made.data).toMatchObject({ related_object: 'delivery-slot', object: 'metadata_schema' });
    const client = clientFor(ctx.target, { appId: project.server_side_key!.app_id, appToken: project.server_side_key!.app_token });
    expect((await client.GET('/v1/metadata-schemas/{resource}', { params: { path: { resource: 'delivery-slot' } } })).data).toEqual(made.data);
  });
});

describeManaged('custom event schemas', () => {
  test('when an event schema is created, renamed and deleted, then reads follow it and names stay unique', async () => {
    const { id: projectId } = await newProject();
    const made = await mgmt().POST('/management/v1/projects/{projectId}/custom-event-schemas', {
      ...projectPath(projectId),
      body: { name: 'newsletter_subscribed', schema: { properties: { channel: { type: 'string', eq: ['web', 'app'] } } } },
    });
    expect(made.data).toEqual({
      id: expect.stringMatching(/^ms_/),
      name: 'newsletter_subscribed',
      schema: { properties: { channel: { type: 'string', array: false, optional: true, eq: ['web', 'app'] } } },
      created_at: expect.any(String),
      updated_at: null,
      object: 'custom-event-schema',
    });
    const bare = await mgmt().POST('/management/v1/projects/{projectId}/custom-event-schemas', { ...projectPath(projectId), body: { name: 'store_visited' } });
    expect(bare.data?.schema).toEqual({ properties: {} });
    expectError(
      failed(await mgmt().POST('/management/v1/projects/{projectId}/custom-event-schemas', { ...projectPath(projectId), body: { name: 'store_visited' } })),
      409,
      'duplicate_found',
    );
    const path = { params: { path: { projectId, customEventSchemaId: made.data!.id } } };
    expectError(
      failed(await mgmt().PUT('/management/v1/projects/{projectId}/custom-event-schemas/{customEventSchemaId}', { ...path, body: { name: 'store_visited' } })),
      409,
      'duplicate_found',
    );
    const renamed = await mgmt().PUT('/management/v1/projects/{projectId}/custom-event-schemas/{customEventSchemaId}', { ...path, body: { name: 'newsletter_joined' } });
    expect(renamed.data).toEqual({ ...made.data, name: 'newsletter_joined', updated_at: expect.any(String) });
    expect((await mgmt().GET('/management/v1/projects/{projectId}/custom-event-schemas/{customEventSchemaId}', path)).data).toEqual(renamed.data);
    const list = (await mgmt().GET('/management/v1/projects/{projectId}/custom-event-schemas', projectPath(projectId))).data!;
    expect(list).toEqual({ object: 'list', data_ref: 'data', data: [renamed.data, bare.data], total: 2 });
    expect((await mgmt().DELETE('/management/v1/projects/{projectId}/custom-event-schemas/{customEventSchemaId}', path)).response.status).toBe(204);
    expectError(failed(await mgmt().DELETE('/management/v1/projects/{projectId}/custom-event-schemas/{customEventSchemaId}', path)), 404, 'not_found');
  });

  test('when a whole event schema as GET returns it is PUT back, then it is accepted and only updated_at changes', async () => {
    const { id: projectId } = await newProject();
    const made = (
      await mgmt().POST('/management/v1/projects/{projectId}/custom-event-schemas', {
        ...projectPath(projectId),
        body: { name: 'order_shipped', schema: { properties: { carrier: { type: 'string', optional: false } } } },
      })
    ).data!;
    const put = await raw(ctx.target, 'PUT', `/management/v1/projects/${projectId}/custom-event-schemas/${made.id}`, { body: JSON.stringify(made) });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ ...made, updated_at: expect.any(String) });
  });

  test.each([
    ['an empty name', { name: '' }],
    ['a 301-character name', { name: 'e'.repeat(301) }],
    ['a schema without properties', { name: 'x', schema: {} }],
  ])('when an event schema has %s, then 400 invalid_payload', async (_, body) => {
    const { id } = await newProject();
    expectError(await raw(ctx.target, 'POST', `/management/v1/projects/${id}/custom-event-schemas`, { body: JSON.stringify(body) }), 400, 'invalid_payload');
  });
});

describeManaged('webhook configurations', () => {
  test('when a webhook is created, listed, updated and deleted, then each step reads back', async () => {
    const { id: projectId } = await newProject();
    const made = await mgmt().POST('/management/v1/projects/{projectId}/webhooks', {
      ...projectPath(projectId),
      body: { target_url: 'https://hooks.coffee.example.com/in', events: ['redemption.succeeded', 'voucher.published'] },
    });
    expect(made.data).toEqual({
      id: expect.stringMatching(/^wh_/),
      target_url: 'https://hooks.coffee.example.com/in',
      events: ['redemption.succeeded', 'voucher.published'],
      active: true,
      secret: expect.stringMatching(/^.{16,}$/),
      created_at: expect.any(String),
      updated_at: null,
      object: 'webhook',
    });
    const list = await mgmt().GET('/management/v1/projects/{projectId}/webhooks', projectPath(projectId));
    // Only the answer to the creation shows the secret in full; reads mask it.
    const masked = (value: string) => `whsec_************${value.slice(-4)}`;
    expect(list.data).toEqual({ object: 'list', data_ref: 'data', data: [{ ...made.data, secret: masked(made.data!.secret!) }], total: 1 });
    const path = { params: { path: { projectId, webhookId: made.data!.id } } };
    const secretValue = `whsec_${secret()}`;
    const updated = await mgmt().PUT('/management/v1/projects/{projectId}/webhooks/{webhookId}', {
      ...path,
      body: { active: false, events: ['customer.created'], secret: secretValue },
    });
    expect(updated.data).toEqual({ ...made.data, active: false, events: ['customer.created'], secret: masked(secretValue), updated_at: expect.any(String) });
    expect((await mgmt().GET('/management/v1/projects/{projectId}/webhooks/{webhookId}', path)).data).toEqual(updated.data);
    expect((await mgmt().GET('/management/v1/projects/{projectId}/webhooks/{webhookId}/deliveries', path)).data).toEqual({
      object: 'list',
      data_ref: 'data',
      data: [],
      total: 0,
    });
    expect((await mgmt().DELETE('/management/v1/projects/{projectId}/webhooks/{webhookId}', path)).response.status).toBe(204);
    expectError(failed(await mgmt().GET('/management/v1/projects/{projectId}/webhooks/{webhookId}', path)), 404, 'not_found');
    expectError(failed(await mgmt().GET('/management/v1/projects/{projectId}/webhooks/{webhookId}/deliveries', path)), 404, 'not_found');
  });

  test('when a whole webhook as GET returns it is PUT back, then it is accepted and only updated_at changes', async () => {
    const { id: projectId } = await newProject();
    const made = (
      await mgmt().POST('/management/v1/projects/{projectId}/webhooks', {
        ...projectPath(projectId),
        body: { target_url: 'https://hooks.coffee.example.com/round-trip', events: ['customer.created'], active: false },
      })
    ).data!;
    const read = (await raw(ctx.target, 'GET', `/management/v1/projects/${projectId}/webhooks/${made.id}`)).body as typeof made;
    const put = await raw(ctx.target, 'PUT', `/management/v1/projects/${projectId}/webhooks/${made.id}`, { body: JSON.stringify(read) });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ ...read, updated_at: expect.any(String) });
  });

  test.each([
    ['an unknown event kind', { target_url: 'https://hooks.example.com', events: ['voucher.exploded'] }],
    ['an internal-only event kind', { target_url: 'https://hooks.example.com', events: ['customer.updated'] }],
    ['no events', { target_url: 'https://hooks.example.com', events: [] }],
    ['a target that is not a URL', { target_url: 'hooks.example.com/in', events: ['customer.created'] }],
    ['a target with another scheme', { target_url: 'ftp://hooks.example.com/in', events: ['customer.created'] }],
    ['no target', { events: ['customer.created'] }],
    ['a short secret', { target_url: 'https://hooks.example.com', events: ['customer.created'], secret: 'short' }],
  ])('when a webhook has %s, then 400 invalid_payload', async (_, body) => {
    const { id } = await newProject();
    expectError(await raw(ctx.target, 'POST', `/management/v1/projects/${id}/webhooks`, { body: JSON.stringify(body) }), 400, 'invalid_payload');
  });

  test('when the server does not allow plain HTTP webhooks, then an http target is 400 invalid_target_url, https is fine', async () => {
    if (!ctx.target.inProcess) return skip(because('inProcess'));
    const management = { id: 'm', token: secret() };
    const app = await createApp({ store: new MemoryStore(SCHEMA), clock: systemClock, apiKeys: [], validateResponses: true, managementKey: management });
    const { server, baseUrl } = await listen(app);
    try {
      const target: Target = { ...ctx.target, baseUrl, management };
      const client = managementClientFor(target);
      const { id } = (await client.POST('/management/v1/projects', { body: { name: 'strict' } })).data!;
      const plain = await client.POST('/management/v1/projects/{projectId}/webhooks', {
        ...projectPath(id),
        body: { target_url: 'http://127.0.0.1:9/in', events: ['customer.created'] },
      });
      expectError(failed(plain), 400, 'invalid_target_url');
      const secure = await client.POST('/management/v1/projects/{projectId}/webhooks', {
        ...projectPath(id),
        body: { target_url: 'https://93.184.216.34:9/in', events: ['customer.created'] },
      });
      expect(secure.response.status).toBe(200);
      const update = await client.PUT('/management/v1/projects/{projectId}/webhooks/{webhookId}', {
        params: { path: { projectId: id, webhookId: secure.data!.id } },
        body: { target_url: 'http://127.0.0.1:9/in' },
      });
      expectError(failed(update), 400, 'invalid_target_url');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('when the webhook or project is unknown, then 404', async () => {
    const { id } = await newProject();
    expectError(await raw(ctx.target, 'GET', `/management/v1/projects/${id}/webhooks/wh_missing`), 404, 'not_found');
    expectError(await raw(ctx.target, 'PUT', `/management/v1/projects/${id}/webhooks/wh_missing`, { body: '{"active":true}' }), 404, 'not_found');
    const body = JSON.stringify({ target_url: 'https://hooks.example.com', events: ['customer.created'] });
    expectError(await raw(ctx.target, 'POST', '/management/v1/projects/proj_missing/webhooks', { body }), 404, 'not_found');
    expectError(await raw(ctx.target, 'GET', '/management/v1/projects/proj_missing/webhooks'), 404, 'not_found');
  });
});
