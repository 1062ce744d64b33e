import type { AppDeps } from '../context.ts';
import type { RouteDef } from '../registry.ts';
import { accountRoutes } from './accounts.ts';
import { authoringRoutes } from './authoring.ts';
import { toolRoutes } from './tools.ts';
import { creditRoutes } from './credits.ts';
import { intakeRoutes } from './intake.ts';
import { projectRoutes } from './projects.ts';
import { providerKeyRoutes } from './providerKeys.ts';
import { planRoutes } from './plans.ts';
import { publicRoutes } from './public.ts';
import { runRoutes } from './runs.ts';
import { worldRoutes } from './worlds.ts';
import { reviewRoutes } from './reviews.ts';

export const routeModules: Array<(deps: AppDeps) => RouteDef[]> = [publicRoutes, accountRoutes, projectRoutes, providerKeyRoutes, intakeRoutes, creditRoutes, planRoutes, reviewRoutes, worldRoutes, runRoutes, authoringRoutes, toolRoutes];
