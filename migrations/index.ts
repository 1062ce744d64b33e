// The ordered list of migrations, applied on start and by `crucible-server migrate`.
// Each room appends its own file; names are stable and never renamed once landed.
import { Migration0001Foundation } from './0001_foundation.ts';
import { Migration0002Credits } from './0002_credits.ts';
import { Migration0003ProviderKeys } from './0003_provider_keys.ts';
import { Migration0004Intake } from './0004_intake.ts';
import { Migration0005Review } from './0005_review.ts';
import { Migration0006WorldsRuns } from './0006_worlds_runs.ts';
import { Migration0007Sponsors } from './0007_sponsors.ts';
import { Migration0008Billing } from './0008_billing.ts';
import { Migration0009Authoring } from './0009_authoring.ts';
import { Migration0010ChangeNotify } from './0010_change_notify.ts';
import { Migration0011SignInAttempts } from './0011_sign_in_attempts.ts';
import { Migration0012ChangeNotifyReads } from './0012_change_notify_reads.ts';
import { Migration0013ChangeNotifySessionsPurchases } from './0013_change_notify_sessions_purchases.ts';
import { Migration0014RunEventChunks } from './0014_run_event_chunks.ts';
import { Migration0015AiUsageAbsorbed } from './0015_ai_usage_absorbed.ts';
import { Migration0016RunExports } from './0016_run_exports.ts';
import { Migration0017QuarantineSealed } from './0017_quarantine_sealed.ts';
import { Migration0018RunExportParts } from './0018_run_export_parts.ts';
import { Migration0019IntakeStagedReads } from './0019_intake_staged_reads.ts';

export const migrationsList = [
  { name: '0001_foundation', class: Migration0001Foundation },
  { name: '0002_credits', class: Migration0002Credits },
  { name: '0003_provider_keys', class: Migration0003ProviderKeys },
  { name: '0004_intake', class: Migration0004Intake },
  { name: '0005_review', class: Migration0005Review },
  { name: '0006_worlds_runs', class: Migration0006WorldsRuns },
  { name: '0007_sponsors', class: Migration0007Sponsors },
  { name: '0008_billing', class: Migration0008Billing },
  { name: '0009_authoring', class: Migration0009Authoring },
  { name: '0010_change_notify', class: Migration0010ChangeNotify },
  { name: '0011_sign_in_attempts', class: Migration0011SignInAttempts },
  { name: '0012_change_notify_reads', class: Migration0012ChangeNotifyReads },
  { name: '0013_change_notify_sessions_purchases', class: Migration0013ChangeNotifySessionsPurchases },
  { name: '0014_run_event_chunks', class: Migration0014RunEventChunks },
  { name: '0015_ai_usage_absorbed', class: Migration0015AiUsageAbsorbed },
  { name: '0016_run_exports', class: Migration0016RunExports },
  { name: '0017_quarantine_sealed', class: Migration0017QuarantineSealed },
  { name: '0018_run_export_parts', class: Migration0018RunExportParts },
  { name: '0019_intake_staged_reads', class: Migration0019IntakeStagedReads },
];
