/**
 * The Node.js SDK `voucherify` 5.2.0 ships plain JavaScript without type declarations. This declares the
 * methods the SDK tests call, as the SDK's source shows them: most pass their argument through as the body
 * or the query of one API call, so their shapes are the contract's own for that operation (its README sends
 * readers to the API reference for every object). Where a method reshapes its arguments (an ID taken out of
 * the object into the path, an event name added to the body, a rollback split into query and body), the
 * signature says so. Responses are the API's response bodies, which the SDK hands back as parsed JSON.
 */
declare module 'voucherify' {
  type Operations = import('../../generated/openapi.js').operations;
  type OperationId = keyof Operations;

  /** The JSON body an operation takes. */
  type Body<Id extends OperationId> =
    NonNullable<Operations[Id]['requestBody']> extends { content: { 'application/json': infer B } } ? B : never;
  /** The query an operation takes (the SDK's list methods pass their `params` as the query). */
  type Query<Id extends OperationId> = NonNullable<Operations[Id]['parameters']['query']>;
  /** What the SDK resolves with: the parsed JSON of the operation's success response. */
  type Reply<Id extends OperationId> = Operations[Id]['responses'] extends { 200: { content: { 'application/json': infer B } } }
    ? B
    : Operations[Id]['responses'] extends { 202: { content: { 'application/json': infer B } } }
      ? B
      : never;
  /** A call whose success has no body (204): the SDK resolves with whatever `request` made of nothing. */
  type Done = Promise<unknown>;

  /** An object the SDK finds by its ID or, failing that, its source ID (it puts one of them in the path). */
  type ById = { id: string; source_id?: string | null } | { id?: undefined; source_id: string };

  type Callback<T> = (error: VoucherifyError | null, result?: T) => void;

  /** What a refused call rejects with: the API's error body, copied onto an `Error`. */
  interface VoucherifyError extends Error {
    code?: number;
    key?: string;
    details?: string;
    request_id?: string;
    resource_id?: string;
    resource_type?: string;
  }

  interface Vouchers {
    /** POST /vouchers/{voucher.code}, with the whole voucher (its code included) as the body. */
    create(voucher: Body<'create-voucher'> & { code: string }): Promise<Reply<'create-voucher'>>;
    get(code: string): Promise<Reply<'get-voucher'>>;
    get(code: string, callback: Callback<Reply<'get-voucher'>>): void;
    /** PUT /vouchers/{voucher.code}, with the whole voucher (its code included) as the body. */
    update(voucher: Body<'update-voucher'> & { code: string }): Promise<Reply<'update-voucher'>>;
    /** Always sends `force` (false unless `params.force` is truthy). */
    delete(code: string, params?: { force?: boolean }): Done;
    list(params?: Query<'list-vouchers'>): Promise<Reply<'list-vouchers'>>;
    /** A code goes to POST /vouchers/{code}/enable (an object would go to /vouchers/enable, which the API lacks). */
    enable(code: string): Promise<Reply<'enable-voucher'>>;
    disable(code: string): Promise<Reply<'disable-voucher'>>;
    balance: {
      create(code: string, params: Body<'update-voucher-balance'>): Promise<Reply<'update-voucher-balance'>>;
    };
    /** POST /vouchers/import with the list as the body. */
    import(vouchers: Body<'import-vouchers'>): Promise<Reply<'import-vouchers'>>;
  }

  interface Campaigns {
    create(campaign: Body<'create-campaign'>): Promise<Reply<'create-campaign'>>;
    update(nameOrId: string, campaign: Body<'update-campaign'>): Promise<Reply<'update-campaign'>>;
    get(nameOrId: string): Promise<Reply<'get-campaign'>>;
    delete(nameOrId: string, params?: { force?: boolean }): Promise<Reply<'delete-campaign'> | undefined>;
    /** The SDK takes no query here, so `vouchers_count` cannot be sent: it always adds one voucher. */
    addVoucher(nameOrId: string, params?: Body<'add-vouchers-to-campaign'>): Promise<Reply<'add-vouchers-to-campaign'>>;
    list(params?: Query<'list-campaigns'>): Promise<Reply<'list-campaigns'>>;
    /** POST /campaigns/{nameOrId}/import with the list as the body. */
    importVouchers(nameOrId: string, vouchers: Body<'import-vouchers-to-campaign'>): Promise<Reply<'import-vouchers-to-campaign'>>;
  }

  interface Exports {
    create(exportResource: Body<'create-export'>): Promise<Reply<'create-export'>>;
    get(exportId: string): Promise<Reply<'get-export'>>;
    delete(exportId: string): Done;
  }

  type Customer = Reply<'get-customer'>;

  interface Customers {
    create(customer: Body<'create-customer'>): Promise<Reply<'create-customer'>>;
    get(idOrSourceId: string): Promise<Reply<'get-customer'>>;
    list(params?: Query<'list-customers'>): Promise<Reply<'list-customers'>>;
    /** Pages through GET /customers by `starting_after` (a creation time), yielding each customer. */
    scroll(params?: Query<'list-customers'>): AsyncGenerator<Customer>;
    /** PUT /customers/{id ?? source_id}, with the customer less its `id` as the body. */
    update(customer: Body<'update-customer'> & ById): Promise<Reply<'update-customer'>>;
    delete(idOrSourceId: string): Done;
  }

  interface Distributions {
    publications: {
      list(params?: Query<'list-publications'>): Promise<Reply<'list-publications'>>;
      /** The SDK takes no query here, so `join_once` cannot be sent. */
      create(params: Body<'create-publication'>): Promise<Reply<'create-publication'>>;
    };
    /** The SDK's Exports class, which it puts here rather than on the client. */
    exports: Exports;
  }

  interface Events {
    /** POST /events with `params` and `event: eventName` as the body. */
    create(eventName: string, params: Omit<Body<'track-custom-event'>, 'event'>): Promise<Reply<'track-custom-event'>>;
  }

  interface Loyalties {
    list(params?: Query<'list-loyalty-programs'>): Promise<Reply<'list-loyalty-programs'>>;
    create(campaign: Body<'create-loyalty-program'>): Promise<Reply<'create-loyalty-program'>>;
    get(campaignId: string): Promise<Reply<'get-loyalty-program'>>;
    /** PUT /loyalties/{campaign.id}, with the campaign less its `id` as the body. */
    update(campaign: Body<'update-loyalty-program'> & { id: string }): Promise<Reply<'update-loyalty-program'>>;
    /** The SDK takes no query here, so `force` cannot be sent. */
    delete(campaignId: string): Promise<Reply<'delete-loyalty-program'> | undefined>;
    listEarningRules(campaignId: string, params?: Query<'list-earning-rules'>): Promise<Reply<'list-earning-rules'>>;
    createEarningRule(campaignId: string, earningRules: Body<'create-earning-rule'>): Promise<Reply<'create-earning-rule'>>;
    /** PUT /loyalties/{campaignId}/earning-rules/{earningRule.id}, with the rule less its `id` as the body. */
    updateEarningRule(campaignId: string, earningRule: Body<'update-earning-rule'> & { id: string }): Promise<Reply<'update-earning-rule'>>;
    deleteEarningRule(campaignId: string, earningRuleId: string): Done;
    listMembers(campaignId: string, params?: Query<'list-members'>): Promise<Reply<'list-members'>>;
    createMember(campaignId: string, member: Body<'add-member'>): Promise<Reply<'add-member'>>;
    getMember(campaignId: string, memberId: string): Promise<Reply<'get-member-1'>>;
    addPoints(campaignId: string, memberId: string, balance: Body<'update-loyalty-card-balance-1'>): Promise<Reply<'update-loyalty-card-balance-1'>>;
    redeemReward(campaignId: string, memberId: string, reward: Body<'redeem-reward-1'>): Promise<Reply<'redeem-reward-1'>>;
    listRewardAssignments(campaignId: string, params?: Query<'list-reward-assignments-2'>): Promise<Reply<'list-reward-assignments-2'>>;
    createRewardAssignments(campaignId: string, assignments: Body<'create-reward-assignment-1'>): Promise<Reply<'create-reward-assignment-1'>>;
    /** PUT /loyalties/{campaignId}/rewards/{assignment.id}, with the assignment less its `id` as the body. */
    updateRewardAssignment(campaignId: string, assignment: Body<'update-reward-assignment-1'> & { id: string }): Promise<Reply<'update-reward-assignment-1'>>;
    deleteRewardAssignment(campaignId: string, assignmentId: string): Done;
  }

  interface Orders {
    create(order: Body<'create-order'>): Promise<Reply<'create-order'>>;
    get(orderId: string): Promise<Reply<'get-order'>>;
    /** PUT /orders/{id ?? source_id}, with the order less its `id` as the body. */
    update(order: Body<'update-order'> & ById): Promise<Reply<'update-order'>>;
    list(params?: Query<'list-orders'>): Promise<Reply<'list-orders'>>;
  }

  interface Products {
    create(product: Body<'create-product'>): Promise<Reply<'create-product'>>;
    get(idOrSourceId: string): Promise<Reply<'get-product'>>;
    /** PUT /products/{id ?? source_id}, with the product less its `id` as the body. */
    update(product: Body<'update-product'> & ById): Promise<Reply<'update-product'>>;
    delete(idOrSourceId: string, params?: Query<'delete-product'>): Done;
    list(params?: Query<'list-products'>): Promise<Reply<'list-products'>>;
    createSku(productId: string, sku: Body<'create-sku'>): Promise<Reply<'create-sku'>>;
    /** The SDK takes no query here: the first page, in the default order. */
    listSkus(productId: string): Promise<Reply<'list-SKUs-in-product'>>;
    /** PUT /products/{productId}/skus/{id ?? source_id}, with the SKU less its `id` as the body. */
    updateSku(productId: string, sku: Body<'update-sku'> & ById): Promise<Reply<'update-sku'>>;
    deleteSku(productId: string, skuId: string, params?: Query<'delete-sku'>): Done;
  }

  interface PromotionTiers {
    listAll(params?: Query<'list-promotion-tiers'>): Promise<Reply<'list-promotion-tiers'>>;
    list(campaignId: string): Promise<Reply<'list-promotion-tiers-from-campaign'>>;
    create(campaignId: string, tier: Body<'add-promotion-tier-to-campaign'>): Promise<Reply<'add-promotion-tier-to-campaign'>>;
    /** PUT /promotions/tiers/{tier.id}, with the whole tier (its `id` included) as the body. */
    update(tier: Body<'update-promotion-tier'> & { id: string }): Promise<Reply<'update-promotion-tier'>>;
    delete(tierId: string): Done;
    /** POST /promotions/tiers/{tierId}/redemption, with the context as the body. */
    redeem(tierId: string, context: Body<'redeem-promotion'>): Promise<Reply<'redeem-promotion'>>;
  }

  interface Promotions {
    /** The same call as `campaigns.create`. */
    create(campaign: Body<'create-campaign'>): Promise<Reply<'create-campaign'>>;
    /** POST /promotions/validation, with the context as the body (no query). */
    validate(context: Body<'validate-promotions'>): Promise<Reply<'validate-promotions'>>;
    tiers: PromotionTiers;
  }

  interface Validations {
    /** POST /vouchers/{code}/validate, with the context as the body. */
    validateVoucher(code: string, context?: Body<'validate-voucher'>): Promise<Reply<'validate-voucher'>>;
  }

  interface Redemptions {
    /**
     * POST /vouchers/{code}/redemption: with a context object as the body, or with a string, which goes in
     * the query as `tracking_id` (and the body is empty). The older form takes the code from the context's
     * `voucher`, and an optional tracking ID string after it.
     */
    redeem(code: string, context?: Body<'redeem-voucher'> | string): Promise<Reply<'redeem-voucher'>>;
    redeem(context: Body<'redeem-voucher'> & { voucher: string }, trackingId?: string): Promise<Reply<'redeem-voucher'>>;
    list(params?: Query<'list-redemptions'>): Promise<Reply<'list-redemptions'>>;
    getForVoucher(code: string): Promise<Reply<'get-voucher-redemptions'>>;
    /**
     * POST /redemptions/{id}/rollback: a string is the reason; of an object, `reason` and `tracking_id` go
     * in the query and `customer` alone in the body.
     */
    rollback(
      redemptionId: string,
      params?: string | { reason?: string; tracking_id?: string; customer?: Body<'rollback-redemption'>['customer'] },
    ): Promise<Reply<'rollback-redemption'>>;
  }

  interface Rewards {
    list(params?: Query<'list-rewards'>): Promise<Reply<'list-rewards'>>;
    create(reward: Body<'create-reward'>): Promise<Reply<'create-reward'>>;
    get(rewardId: string): Promise<Reply<'get-reward'>>;
    /** PUT /rewards/{reward.id}, with the reward less its `id` as the body. */
    update(reward: Body<'update-reward'> & { id: string }): Promise<Reply<'update-reward'>>;
    delete(rewardId: string): Done;
    listAssignments(rewardId: string, params?: Query<'list-reward-assignments'>): Promise<Reply<'list-reward-assignments'>>;
    createAssignment(rewardId: string, assignment: Body<'create-reward-assignment'>): Promise<Reply<'create-reward-assignment'>>;
    /** PUT /rewards/{rewardId}/assignments/{assignment.id}, with the assignment less its `id` as the body. */
    updateAssignment(rewardId: string, assignment: Body<'update-reward-assignment'> & { id: string }): Promise<Reply<'update-reward-assignment'>>;
    deleteAssignment(rewardId: string, assignmentId: string): Done;
  }

  interface ValidationRules {
    create(rule: Body<'create-validation-rules'>): Promise<Reply<'create-validation-rules'>>;
    get(ruleId: string): Promise<Reply<'get-validation-rule'>>;
    /** PUT /validation-rules/{rule.id}, with the rule less its `id` as the body. */
    update(rule: Body<'update-validation-rule'> & { id: string }): Promise<Reply<'update-validation-rule'>>;
    delete(ruleId: string): Done;
    /** The SDK takes no query here, so `force` cannot be sent. */
    createAssignment(ruleId: string, assignment: Body<'create-validation-rule-assignment'>): Promise<Reply<'create-validation-rule-assignment'>>;
    deleteAssignment(ruleId: string, assignmentId: string): Done;
    list(params?: Query<'list-validation-rules'>): Promise<Reply<'list-validation-rules'>>;
    listAssignments(ruleId: string, params?: Query<'list-validation-rule-assignments'>): Promise<Reply<'list-validation-rule-assignments'>>;
  }

  interface Segments {
    create(segment: Body<'create-segment'>): Promise<Reply<'create-segment'>>;
    get(segmentId: string): Promise<Reply<'get-segment'>>;
    delete(segmentId: string): Done;
  }

  interface VoucherifyClient {
    vouchers: Vouchers;
    campaigns: Campaigns;
    customers: Customers;
    distributions: Distributions;
    events: Events;
    loyalties: Loyalties;
    orders: Orders;
    products: Products;
    promotions: Promotions;
    redemptions: Redemptions;
    rewards: Rewards;
    segments: Segments;
    validationRules: ValidationRules;
    validations: Validations;
  }

  interface Options {
    applicationId: string;
    clientSecretKey: string;
    /** The server's base URL; the SDK puts `/v1` before every path. */
    apiUrl?: string;
    apiVersion?: string;
    channel?: string;
  }

  function voucherify(options: Options): VoucherifyClient;

  namespace voucherify {
    export type { Body, Query, Reply, VoucherifyClient, VoucherifyError };
  }

  export = voucherify;
}
