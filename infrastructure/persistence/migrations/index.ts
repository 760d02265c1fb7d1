/**
 * Every migration, in order. Add one line per new migration (class names start with a timestamp).
 * Listed explicitly so the compiled service and the tests apply the same set, with no file scanning.
 */
import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000100Foundation } from './Migration20261122000100Foundation';
import { Migration20261122003000Identity } from './Migration20261122003000Identity';
import { Migration20261122004500ConnectorAccounts } from './Migration20261122004500ConnectorAccounts';
import { Migration20261122004000Webhooks } from './Migration20261122004000Webhooks';
import { Migration20261122005000Payments } from './Migration20261122005000Payments';
import { Migration20261122005100PaymentAttempts } from './Migration20261122005100PaymentAttempts';
import { Migration20261122009000OutboxSequencing } from './Migration20261122009000OutboxSequencing';
import { Migration20261122009500WebhookQueueIndexes } from './Migration20261122009500WebhookQueueIndexes';
import { Migration20261122009800PaymentRecovery } from './Migration20261122009800PaymentRecovery';
import { Migration20261122010000LeanerWriteIndexes } from './Migration20261122010000LeanerWriteIndexes';
import { Migration20261125000100DropRedundantDeliveryIndex } from './Migration20261125000100DropRedundantDeliveryIndex';
import { Migration20261125000200RoutingLeaseCheck } from './Migration20261125000200RoutingLeaseCheck';
import { Migration20261125000300LeanerDeliveryWrites } from './Migration20261125000300LeanerDeliveryWrites';
import { Migration20261125000400OperationIntents } from './Migration20261125000400OperationIntents';
import { Migration20261126000100PendingOperationSettlement } from './Migration20261126000100PendingOperationSettlement';
import { Migration20261126000200Flows } from './Migration20261126000200Flows';
import { Migration20261127000100Recipients } from './Migration20261127000100Recipients';
import { Migration20261127000200PaymentIdempotencyKeys } from './Migration20261127000200PaymentIdempotencyKeys';
import { Migration20261128000100SealSecretsAtRest } from './Migration20261128000100SealSecretsAtRest';
import { Migration20261128000200SealConnectorWebhookTokens } from './Migration20261128000200SealConnectorWebhookTokens';
import { Migration20261128000300FlowRunWaits } from './Migration20261128000300FlowRunWaits';
import { Migration20261129000100CheckoutExpiry } from './Migration20261129000100CheckoutExpiry';
import { Migration20261130000100CardRetryCounts } from './Migration20261130000100CardRetryCounts';
import { Migration20261130000200BankChargeLookup } from './Migration20261130000200BankChargeLookup';
import { Migration20261130000900PlatformBilling } from './Migration20261130000900PlatformBilling';
import { Migration20261201000100Subscriptions } from './Migration20261201000100Subscriptions';
import { Migration20261201000200ManualFlowRuns } from './Migration20261201000200ManualFlowRuns';
import { Migration20261201000500EventTraceContext } from './Migration20261201000500EventTraceContext';
import { Migration20261202000100PaymentWriteGuard } from './Migration20261202000100PaymentWriteGuard';
import { Migration20261203000100PaymentDocumentsUncompressed } from './Migration20261203000100PaymentDocumentsUncompressed';
import { Migration20261204000100UncapturedAuthorizations } from './Migration20261204000100UncapturedAuthorizations';

export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261122000100Foundation', class: Migration20261122000100Foundation },
  { name: 'Migration20261122003000Identity', class: Migration20261122003000Identity },
  { name: 'Migration20261122004000Webhooks', class: Migration20261122004000Webhooks },
  { name: 'Migration20261122004500ConnectorAccounts', class: Migration20261122004500ConnectorAccounts },
  { name: 'Migration20261122005000Payments', class: Migration20261122005000Payments },
  { name: 'Migration20261122005100PaymentAttempts', class: Migration20261122005100PaymentAttempts },
  { name: 'Migration20261122009000OutboxSequencing', class: Migration20261122009000OutboxSequencing },
  { name: 'Migration20261122009500WebhookQueueIndexes', class: Migration20261122009500WebhookQueueIndexes },
  { name: 'Migration20261122009800PaymentRecovery', class: Migration20261122009800PaymentRecovery },
  { name: 'Migration20261122010000LeanerWriteIndexes', class: Migration20261122010000LeanerWriteIndexes },
  { name: 'Migration20261125000100DropRedundantDeliveryIndex', class: Migration20261125000100DropRedundantDeliveryIndex },
  { name: 'Migration20261125000200RoutingLeaseCheck', class: Migration20261125000200RoutingLeaseCheck },
  { name: 'Migration20261125000300LeanerDeliveryWrites', class: Migration20261125000300LeanerDeliveryWrites },
  { name: 'Migration20261125000400OperationIntents', class: Migration20261125000400OperationIntents },
  { name: 'Migration20261126000100PendingOperationSettlement', class: Migration20261126000100PendingOperationSettlement },
  { name: 'Migration20261126000200Flows', class: Migration20261126000200Flows },
  { name: 'Migration20261127000100Recipients', class: Migration20261127000100Recipients },
  { name: 'Migration20261127000200PaymentIdempotencyKeys', class: Migration20261127000200PaymentIdempotencyKeys },
  { name: 'Migration20261128000100SealSecretsAtRest', class: Migration20261128000100SealSecretsAtRest },
  { name: 'Migration20261128000200SealConnectorWebhookTokens', class: Migration20261128000200SealConnectorWebhookTokens },
  { name: 'Migration20261128000300FlowRunWaits', class: Migration20261128000300FlowRunWaits },
  { name: 'Migration20261129000100CheckoutExpiry', class: Migration20261129000100CheckoutExpiry },
  { name: 'Migration20261130000100CardRetryCounts', class: Migration20261130000100CardRetryCounts },
  { name: 'Migration20261130000200BankChargeLookup', class: Migration20261130000200BankChargeLookup },
  { name: 'Migration20261130000900PlatformBilling', class: Migration20261130000900PlatformBilling },
  { name: 'Migration20261201000100Subscriptions', class: Migration20261201000100Subscriptions },
  { name: 'Migration20261201000200ManualFlowRuns', class: Migration20261201000200ManualFlowRuns },
  { name: 'Migration20261201000500EventTraceContext', class: Migration20261201000500EventTraceContext },
  { name: 'Migration20261202000100PaymentWriteGuard', class: Migration20261202000100PaymentWriteGuard },
  { name: 'Migration20261203000100PaymentDocumentsUncompressed', class: Migration20261203000100PaymentDocumentsUncompressed },
  { name: 'Migration20261204000100UncapturedAuthorizations', class: Migration20261204000100UncapturedAuthorizations },
];
