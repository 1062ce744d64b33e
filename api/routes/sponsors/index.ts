// Sponsor programs (spec: Sponsor API; Sponsor institution and program; States and transitions; Authentication —
// sponsor rows). Institution endpoints take a user session of an assigned sponsor administrator (an API token is 403 by
// the router; a missing assignment or another institution's program is 404): api/routes/sponsors/access.ts.
import type { AppDeps } from '../../context.ts';
import type { RouteDef } from '../../registry.ts';
import { allocateSponsorCreditsRoute } from './allocateSponsorCredits.ts';
import { createSponsorProgramRoute } from './createSponsorProgram.ts';
import { decideSponsorMemberRoute } from './decideSponsorMember.ts';
import { getSponsorProgramRoute } from './getSponsorProgram.ts';
import { getSponsorProgramReportRoute } from './getSponsorProgramReport.ts';
import { listSponsorInstitutionsRoute } from './listSponsorInstitutions.ts';
import { listSponsorProgramsRoute } from './listSponsorPrograms.ts';
import { redeemSponsorCodeRoute } from './redeemSponsorCode.ts';
import { setSponsorProgramStatusRoute } from './setSponsorProgramStatus.ts';

export function sponsorRoutes(deps: AppDeps): RouteDef[] {
  return [
    listSponsorInstitutionsRoute(deps),
    listSponsorProgramsRoute(deps),
    createSponsorProgramRoute(deps),
    getSponsorProgramRoute(deps),
    setSponsorProgramStatusRoute(deps),
    decideSponsorMemberRoute(deps),
    allocateSponsorCreditsRoute(deps),
    getSponsorProgramReportRoute(deps),
    redeemSponsorCodeRoute(deps),
  ];
}
