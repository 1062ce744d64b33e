import { Migration } from '@mikro-orm/migrations';

// A provider may bill more tokens than a job reserved for; the call keeps its answer, is charged what was left of the
// reservation, and the rest is recorded here as absorbed by the service (domain/ai/pricing.ts, chargeWithinLimit), so
// the usage listing and the ledger agree.
export class Migration0015AiUsageAbsorbed extends Migration {
  override name = '0015_ai_usage_absorbed';
  up(): void {
    this.addSql('alter table ai_usage add column credits_absorbed bigint not null default 0 check (credits_absorbed >= 0)');
  }
}
