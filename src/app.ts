import path from 'node:path';
import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { type Config, parseAllowList, publicUrlOf } from './config.js';
// The modules' tables join the platform's Database type here, for every program that builds the app.
import type {} from './database.js';
import { EVENTS } from './events.js';
import { accountsRoutes } from './modules/accounts/accounts.routes.js';
import { createAccountsService } from './modules/accounts/accounts.service.js';
import { secondFactorRoutes } from './modules/accounts/second-factor.routes.js';
import { createSecondFactorService } from './modules/accounts/second-factor.service.js';
import { usersRoutes } from './modules/accounts/users.routes.js';
import { createUsersService } from './modules/accounts/users.service.js';
import { adminRoutes } from './modules/admin/admin.routes.js';
import { apiKeysRoutes } from './modules/api-keys/api-keys.routes.js';
import { createApiKeysService } from './modules/api-keys/api-keys.service.js';
import { bankAdminRoutes, bankConnectorRoutes } from './modules/bank/bank.routes.js';
import { createBankService } from './modules/bank/bank.service.js';
import { createKycProvider } from './modules/kyc/kyc.js';
import { notificationRoutes } from './modules/notifications/notifications.routes.js';
import { createNotifications } from './modules/notifications/notifications.service.js';
import { createNotificationPreferences } from './modules/notifications/preferences.service.js';
import { onboardingRoutes } from './modules/onboarding/onboarding.routes.js';
import { createOnboardingService } from './modules/onboarding/onboarding.service.js';
import { createReviewService } from './modules/onboarding/review.service.js';
import { operatorsRoutes } from './modules/operators/operators.routes.js';
import { createOperatorsService } from './modules/operators/operators.service.js';
import { teamRoutes } from './modules/team/team.routes.js';
import { createTeamService } from './modules/team/team.service.js';
import { createConnectorRail } from './modules/transfers/connector-rail.js';
import { type Rail, railOf } from './modules/transfers/rail.js';
import { createSandboxRail } from './modules/transfers/sandbox-rail.js';
import { createSettlement } from './modules/transfers/settlement.js';
import { transfersAdminRoutes, transfersRoutes } from './modules/transfers/transfers.routes.js';
import { createTransfersService } from './modules/transfers/transfers.service.js';
import { createTransferWorker } from './modules/transfers/transfers.worker.js';
import { virtualAccountsRoutes } from './modules/virtual-accounts/virtual-accounts.routes.js';
import { createVirtualAccountsService } from './modules/virtual-accounts/virtual-accounts.service.js';
import { eventsRoutes } from './modules/webhooks/events.routes.js';
import { createEventSchemas } from './modules/webhooks/events.schemas.js';
import { addressPolicy } from './modules/webhooks/ssrf.js';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.js';
import { createWebhooksService } from './modules/webhooks/webhooks.service.js';
import { createWebhookWorker } from './modules/webhooks/webhooks.worker.js';
import { createAuditService } from './platform/audit/audit.service.js';
import { createAuditedWrite } from './platform/audit/audited-write.js';
import { type Clock, systemClock } from './platform/clock.js';
import { createKeyRing, loadOrCreateDevKey } from './platform/crypto/keys.js';
import { useThreadPool } from './platform/crypto/passwords.js';
import { type DatabaseHandle, openDatabase } from './platform/db/database.js';
import { migrateToLatest, pendingMigrations } from './platform/db/migrator.js';
import type { Environment } from './platform/environment.js';
import { createEventSerializer } from './platform/events/catalog.js';
import { registerAuth } from './platform/http/auth.js';
import { browserCookie } from './platform/http/browser-session.js';
import { registerClientGone } from './platform/http/client-gone.js';
import { antiForgeryToken } from './platform/http/csrf.js';
import { registerHealthRoutes } from './platform/http/health.routes.js';
import {
  AccessLogController,
  clientErrorHandler,
  frameworkErrors,
  genReqId,
  registerHttpPlatform,
} from './platform/http/http-platform.js';
import { registerMultipart } from './platform/http/multipart.js';
import { DOCS_PREFIX, registerOpenApi } from './platform/http/openapi.js';
import {
  memoryRateLimitStore,
  redisRateLimitStore,
  registerIpRateLimit,
} from './platform/http/rate-limit.js';
import { validatorCompiler } from './platform/http/validation.js';
import { registerWebApps } from './platform/http/web-apps.js';
import { purgeExpiredIdempotencyKeys, registerIdempotency } from './platform/idempotency/idempotency.js';
import { purgeRateWindows } from './platform/limits/limits.repository.js';
import { accessLog, createLogger, LazyChildLogger } from './platform/logger.js';
import { createMailer } from './platform/mail/mailer.js';
import { createMailOutbox } from './platform/mail/outbox.js';
import { createMetrics, NO_METRICS } from './platform/metrics/metrics.js';
import { registerMetricsRoute } from './platform/metrics/metrics.routes.js';
import { createDiskHealth } from './platform/storage/disk-health.js';
import { ensurePrivateDirectory } from './platform/storage/private-paths.js';
import { localDiskStorage } from './platform/storage/storage.js';

export const API_PREFIX = '/baas/api/v1';
export const JSON_BODY_LIMIT = 100 * 1024;
const HOUSEKEEPING_INTERVAL_MS = 10 * 60 * 1000;
const eventSchemas = createEventSchemas(EVENTS);

declare module 'fastify' {
  interface FastifyInstance {
    housekeeping(): Promise<void>;
    /** The worker loops, for tests and operators (readiness follows them). */
    workers: Record<'webhooks' | 'mail' | 'transfers', { start(): void; stop(): Promise<void> }>;
  }
}

export interface AppOverrides {
  clock?: Clock;
  logStream?: DestinationStream;
  /** PostgreSQL schema (search_path) for this app; tests give each app its own. */
  pgSchema?: string;
}

/**
 * The composition root: database → repositories → services → routes, wired by hand. Production
 * (server.ts) and the tests build the app through this one function.
 */
export async function buildApp(config: Config, overrides: AppOverrides = {}): Promise<FastifyInstance> {
  const clock = overrides.clock ?? systemClock;
  useThreadPool(config.UV_THREADPOOL_SIZE);
  const log = createLogger(config.LOG_LEVEL, overrides.logStream);
  // Off without METRICS_TOKEN: no registry, no per-request work (docs/operations.md, "Metrics").
  const metrics = config.METRICS_TOKEN ? createMetrics() : NO_METRICS;
  ensurePrivateDirectory(config.DATA_DIR);
  const outboxDir = path.join(config.DATA_DIR, 'outbox');
  // The mailer writes each .eml 0600; without SMTP_URL its directory is made private here.
  if (!config.SMTP_URL) ensurePrivateDirectory(outboxDir);
  const database = openDatabase(config.DATABASE_URL, {
    ...(overrides.pgSchema ? { pgSchema: overrides.pgSchema } : {}),
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    poolTimeoutMs: config.DATABASE_POOL_TIMEOUT_MS,
    onIdleError: (error) => log.error({ err: error }, 'an idle PostgreSQL connection failed; it was dropped'),
    onReadRetried: (error) =>
      log.warn({ err: error }, 'a PostgreSQL connection died under a read; it was run again on another'),
  });
  try {
    await migrate(config.DATABASE_URL, database, overrides.pgSchema);
    // Not worth refusing to start over (a full disk, a busy database): housekeeping tries again.
    await database
      .optimize()
      .catch((error: unknown) => log.warn({ err: error }, 'planner statistics not gathered at start'));
  } catch (error) {
    await database.close();
    throw error;
  }
  const write = createAuditedWrite(database.db, clock, createEventSerializer(EVENTS));
  const keys = createKeyRing(config.DATA_ENCRYPTION_KEY ?? loadOrCreateDevKey(config.DATA_DIR));
  const mailer = createMailer({
    smtpUrl: config.SMTP_URL,
    from: config.MAIL_FROM,
    outboxDir,
    timeoutMs: config.SMTP_TIMEOUT_MS,
    log,
  });
  const mail = createMailOutbox({
    db: database.db,
    clock,
    keys,
    mailer,
    log,
    pollMs: config.MAIL_POLL_MS,
    retryBaseMs: config.MAIL_RETRY_BASE_MS,
    attemptTimeoutMs: config.SMTP_TIMEOUT_MS,
  });
  const notify = createNotifications({ mail, publicUrl: publicUrlOf(config) });
  const rateLimitStore = config.REDIS_URL
    ? redisRateLimitStore(config.REDIS_URL, clock)
    : memoryRateLimitStore(clock);

  const storage = localDiskStorage(path.join(config.DATA_DIR, 'files'));
  const accounts = createAccountsService({ db: database.db, write, clock, keys, mail, log });
  const users = createUsersService({
    db: database.db,
    write,
    clock,
    sendInvitation: notify.userInvited,
    wakeMail: mail.wake,
    openSession: accounts.openSession,
  });
  const preferences = createNotificationPreferences({ db: database.db, write });
  const factors = createSecondFactorService({
    db: database.db,
    write,
    clock,
    keys,
    openSession: accounts.openSession,
  });
  const onboarding = createOnboardingService({
    db: database.db,
    write,
    clock,
    keys,
    storage,
    kyc: createKycProvider(config, log),
    log,
    notify,
    sessionCredential: accounts.sessionCredential,
    setSessionEnvironment: accounts.setSessionEnvironment,
  });
  const review = createReviewService({
    db: database.db,
    write,
    keys,
    storage,
    notify,
    fourEyes: config.REQUIRE_FOUR_EYES,
  });
  const operators = createOperatorsService({
    db: database.db,
    write,
    clock,
    keys,
    publicUrl: publicUrlOf(config),
  });
  const audit = createAuditService(database.db, keys, {
    operators,
    partners: accounts,
    users: { namesOf: accounts.userNamesOf },
  });
  const consoleCookie = browserCookie('baas_console', config.NODE_ENV === 'production');
  const dashboardCookie = browserCookie('baas_dashboard', config.NODE_ENV === 'production');
  const antiForgery = (sessionToken: string) => antiForgeryToken(keys.csrf, sessionToken);
  const apiKeys = createApiKeysService({ db: database.db, write, clock, keys, log });
  const team = createTeamService({
    db: database.db,
    write,
    clock,
    keys,
    hasRepresentative: onboarding.hasRepresentative,
  });
  const webhookPolicy = (environment: Environment) =>
    addressPolicy(environment, {
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
      production: config.NODE_ENV === 'production',
    });

  const webhookWorker = createWebhookWorker({
    db: database.db,
    write,
    clock,
    keys,
    log,
    pollMs: config.WEBHOOK_POLL_MS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    concurrency: config.WEBHOOK_CONCURRENCY,
    endpointConcurrency: config.WEBHOOK_ENDPOINT_CONCURRENCY,
    retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
    policyFor: webhookPolicy,
    notify,
    onDelivery: metrics.webhookDelivery,
  });
  const webhooks = createWebhooksService({
    db: database.db,
    write,
    wakeWorker: () => webhookWorker.wake(),
    clock,
    keys,
    log,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    policyFor: webhookPolicy,
  });
  const virtualAccounts = createVirtualAccountsService({
    db: database.db,
    write,
    keys,
    bankCodes: { sandbox: config.BANK_CODE_SANDBOX, live: config.BANK_CODE_LIVE },
    bankName: config.BANK_NAME,
    clock,
  });
  const bank = createBankService({
    db: database.db,
    clock,
    keys,
    virtualAccounts,
    onNotification: metrics.creditNotification,
  });
  // Sandbox transfers go to the built-in sandbox bank; live ones to the sponsor bank's connector,
  // or in development without one to the sandbox bank too (warned below).
  const sandboxRails: Record<Environment, Rail> = {
    sandbox: createSandboxRail({ bankCode: config.BANK_CODE_SANDBOX, requeryMs: config.TRANSFER_REQUERY_MS }),
    live: createSandboxRail({ bankCode: config.BANK_CODE_LIVE, requeryMs: config.TRANSFER_REQUERY_MS }),
  };
  const connectorRail =
    config.BANK_CONNECTOR_URL && config.BANK_CONNECTOR_SECRET
      ? railOf(
          createConnectorRail({
            url: config.BANK_CONNECTOR_URL,
            secret: config.BANK_CONNECTOR_SECRET,
            timeoutMs: config.BANK_CONNECTOR_TIMEOUT_MS,
            log,
          }),
          config.BANK_CONNECTOR_TIMEOUT_MS,
        )
      : undefined;
  const railFor = (environment: Environment) =>
    (environment === 'live' && connectorRail) || sandboxRails[environment];
  const transfers = createTransfersService({
    db: database.db,
    write,
    keys,
    clock,
    bankCodes: { sandbox: config.BANK_CODE_SANDBOX, live: config.BANK_CODE_LIVE },
    bankName: config.BANK_NAME,
    railFor,
    wakeWorker: () => transferWorker.wake(),
  });
  const settlement = createSettlement({
    db: database.db,
    write,
    clock,
    log,
    railFor,
    requeryMs: config.TRANSFER_REQUERY_MS,
    notify,
  });
  const transferWorker = createTransferWorker({
    db: database.db,
    clock,
    log,
    pollMs: config.TRANSFER_POLL_MS,
    // A lease outlives the longest call to the bank, so no other instance asks meanwhile.
    leaseMs: config.BANK_CONNECTOR_TIMEOUT_MS + 30_000,
    advance: settlement.advance,
  });
  if (config.NODE_ENV === 'development' && !config.BANK_CONNECTOR_URL) {
    log.warn(
      'BANK_CONNECTOR_URL is not set: live accounts use the built-in bank simulator, no real money moves (set BANK_CONNECTOR_URL and BANK_CONNECTOR_SECRET for the sponsor bank)',
    );
  }

  // Whether writes fail for a full disk, learned from the requests (/readyz `storage`).
  const disk = createDiskHealth();
  const app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    // One access line per request, written by the platform instead of Fastify's request lines.
    logController: new AccessLogController(accessLog(log), metrics.http, disk),
    childLoggerFactory: (logger, bindings, options) => new LazyChildLogger(logger, bindings, options),
    genReqId,
    frameworkErrors,
    clientErrorHandler,
    bodyLimit: JSON_BODY_LIMIT,
    trustProxy:
      typeof config.TRUST_PROXY === 'number'
        ? (_address: string, hop: number) => hop < (config.TRUST_PROXY as number)
        : config.TRUST_PROXY,
    return503OnClosing: false,
    requestTimeout: 30_000,
    connectionTimeout: 60_000,
    keepAliveTimeout: 5_000,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
    // Node enforces the header and request timeouts on a timer: check every second, not every 30 s.
    // Without Host, Node would answer 400 itself with an empty body; the platform answers instead.
    http: { headersTimeout: 10_000, connectionsCheckingInterval: 1_000, requireHostHeader: false },
  });
  app.setValidatorCompiler(validatorCompiler);

  registerHttpPlatform(app, { docsPrefix: DOCS_PREFIX, disk });
  registerIpRateLimit(app, {
    perMinute: config.RATE_LIMIT_IP_PER_MINUTE,
    store: rateLimitStore,
    clock,
    onUnchecked: metrics.rateLimitUnchecked,
  });
  // PostgreSQL: a read whose client has gone is cancelled (SQLite's statements cannot be).
  if (database.cancel) registerClientGone(app, { cancel: database.cancel });
  registerAuth(app, {
    resolvers: {
      session: accounts.authenticateSession,
      apiKey: apiKeys.authenticate,
      sessionWithData: onboarding.authenticateWithRecord,
      operatorSession: operators.authenticate,
    },
    adminApiKey: config.ADMIN_API_KEY,
    operatorCookie: consoleCookie.name,
    partnerCookie: dashboardCookie.name,
    antiForgery,
    publicUrl: config.PUBLIC_URL,
  });
  await app.register(fastifyCookie);
  registerMultipart(app);
  registerIdempotency(app, { db: database.db, clock, keys });
  await registerOpenApi(app, {
    webhooks: eventSchemas.webhooksDocument(),
    operatorDocument: Boolean(config.ADMIN_API_KEY),
  });
  await registerWebApps(app);

  const stuckAfterMs = config.WORKER_STUCK_AFTER_MS;
  registerHealthRoutes(app, {
    ping: database.ping,
    pendingMigrations: () => pendingMigrations(database.db, database.schema),
    storage: disk.state,
    workers: {
      webhook_worker: () => webhookWorker.health(stuckAfterMs),
      mail_worker: () => mail.health(stuckAfterMs),
      transfer_worker: config.TRANSFER_WORKER ? () => transferWorker.health(stuckAfterMs) : undefined,
    },
  });
  if (config.METRICS_TOKEN && metrics.registry) {
    registerMetricsRoute(app, { token: config.METRICS_TOKEN, registry: metrics.registry });
    metrics.observe({
      now: () => clock.now(),
      pool: database.connections,
      backlogs: {
        webhooks: webhookWorker.backlog,
        mail: mail.backlog,
        transfers: transferWorker.backlog,
      },
      transfersByStatus: transferWorker.byStatus,
      onError: (error) => log.warn({ err: error }, 'metrics: a queue could not be read'),
    });
  }
  await app.register(
    async (api) => {
      await api.register(accountsRoutes, { accounts, cookie: dashboardCookie, antiForgery });
      await api.register(usersRoutes, { users, cookie: dashboardCookie, antiForgery });
      await api.register(notificationRoutes, { preferences });
      await api.register(secondFactorRoutes, { factors, cookie: dashboardCookie, antiForgery });
      await api.register(onboardingRoutes, { onboarding });
      await api.register(apiKeysRoutes, { apiKeys });
      await api.register(teamRoutes, { team });
      await api.register(virtualAccountsRoutes, { virtualAccounts });
      await api.register(transfersRoutes, { transfers });
      await api.register(webhooksRoutes, { webhooks, schemas: eventSchemas });
      await api.register(eventsRoutes, { webhooks, schemas: eventSchemas });
      // Without BANK_CONNECTOR_SECRET no one can sign: /bank/* answers 404 (docs/operator-guide.md).
      if (config.BANK_CONNECTOR_SECRET) {
        await api.register(bankConnectorRoutes, {
          bank,
          settlement,
          secret: config.BANK_CONNECTOR_SECRET,
          allowList: config.BANK_CONNECTOR_ALLOWED_IPS
            ? parseAllowList(config.BANK_CONNECTOR_ALLOWED_IPS).list
            : undefined,
          clock,
        });
      }
      // Without ADMIN_API_KEY the back office (console sessions included) answers 404
      // (docs/operator-guide.md).
      if (config.ADMIN_API_KEY) {
        await api.register(adminRoutes, { review, audit });
        await api.register(bankAdminRoutes, { bank });
        await api.register(transfersAdminRoutes, { transfers });
        await api.register(operatorsRoutes, { operators, cookie: consoleCookie });
      }
    },
    { prefix: API_PREFIX },
  );

  /** Removes what no rule reads any more; every 10 minutes, and on demand (tests, operators). */
  const runHousekeeping = async (): Promise<void> => {
    const now = clock.now();
    await Promise.all([
      accounts.purgeExpired(),
      purgeExpiredIdempotencyKeys(database.db, now),
      purgeRateWindows(database.db, now - 2 * 24 * 60 * 60 * 1000),
      webhookWorker.purgeSettled(),
      operators.purgeExpired(),
      mail.purgeSettled(),
      onboarding.deleteLeftoverFiles(),
      transfers.purgeNameEnquiries(),
    ]);
    // After the purges: the statistics then describe what stays.
    await database.optimize();
  };
  app.decorate('housekeeping', runHousekeeping);
  app.decorate('workers', { webhooks: webhookWorker, mail, transfers: transferWorker });
  const housekeeping = setInterval(() => {
    runHousekeeping().catch((error: unknown) => log.error({ err: error }, 'housekeeping failed'));
  }, HOUSEKEEPING_INTERVAL_MS);
  housekeeping.unref();

  app.addHook('onReady', async () => {
    webhookWorker.start();
    mail.start();
    // TRANSFER_WORKER=false: an API-only instance; others send (docs/operator-guide.md).
    if (config.TRANSFER_WORKER) transferWorker.start();
  });
  // After listen the server has no 'error' listener of Fastify's; an accept failure (EMFILE when
  // file descriptors run out) would otherwise end the process instead of refusing one connection.
  app.addHook('onListen', async () => {
    app.server.on('error', (error) => log.error({ err: error }, 'the HTTP server reported an error'));
  });
  // Shutdown's first step, before the server stops accepting: the workers lease nothing new, and
  // the attempts in flight (a webhook, a call to the bank) finish while requests drain.
  app.addHook('preClose', async () => {
    transferWorker.halt();
    webhookWorker.halt();
    mail.halt();
  });
  app.addHook('onClose', async () => {
    clearInterval(housekeeping);
    await Promise.all([transferWorker.stop(), webhookWorker.stop(), mail.stop()]);
    mailer.close();
    await rateLimitStore.close();
    await database.close();
  });
  return app;
}

/**
 * Migrations on PostgreSQL run on a connection of their own, without the requests' statement
 * timeout (a migration of a big table may take minutes); SQLite's single connection has none (and
 * a second handle on `sqlite::memory:` would be another database).
 */
async function migrate(url: string, database: DatabaseHandle, pgSchema: string | undefined): Promise<void> {
  if (database.dialect !== 'postgres') {
    await migrateToLatest(database.db, database.schema);
    return;
  }
  const migrating = openDatabase(url, { ...(pgSchema ? { pgSchema } : {}), poolSize: 1 });
  try {
    await migrateToLatest(migrating.db, migrating.schema);
  } finally {
    await migrating.close();
  }
}
