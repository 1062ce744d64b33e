import type { AppDeps } from '../context.ts';
import type { RouteDef } from '../registry.ts';
import { accountRoutes } from './accounts/index.ts';
import { billingRoutes } from './billing/index.ts';
import { authoringRoutes } from './authoring/index.ts';
import { toolRoutes } from './tools/index.ts';
import { creditRoutes } from './credits/index.ts';
import { intakeRoutes } from './intake/index.ts';
import { projectRoutes } from './projects/index.ts';
import { providerKeyRoutes } from './providerKeys/index.ts';
import { planRoutes } from './plans/index.ts';
import { publicRoutes } from './public/index.ts';
import { runRoutes } from './runs/index.ts';
import { worldRoutes } from './worlds/index.ts';
import { reviewRoutes } from './reviews/index.ts';
import { sponsorRoutes } from './sponsors/index.ts';

/** A route module; `routes` gives the app's whole route list once built (public.ts documents it). */
export type RouteModule = (deps: AppDeps, routes: () => RouteDef[]) => RouteDef[];

export const routeModules: RouteModule[] = [
  publicRoutes,
  accountRoutes,
  projectRoutes,
  providerKeyRoutes,
  intakeRoutes,
  creditRoutes,
  planRoutes,
  reviewRoutes,
  worldRoutes,
  runRoutes,
  sponsorRoutes,
  billingRoutes,
  authoringRoutes,
  toolRoutes,
];
