import { Migration } from '@mikro-orm/migrations';

// Sign-in attempt counters shared by every API process (spec: Authentication; docs/decisions.md "Sign-in attempts").
// The shape is the one rate-limiter-flexible's PostgreSQL store reads and writes: key, points, expire (epoch ms).
// Keys hold a digest of the normalised email or the client address, never the email itself.
export class Migration0011SignInAttempts extends Migration {
  override name = '0011_sign_in_attempts';
  up(): void {
    this.addSql(`create table sign_in_attempts (
      key varchar(255) primary key,
      points integer not null default 0,
      expire bigint
    )`);
    this.addSql('create index sign_in_attempts_expire on sign_in_attempts (expire)');
  }
}
