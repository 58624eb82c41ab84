import type { GatewayModule } from '../module.ts';
import { hostedRoutes } from './hosted.rest.ts';
import './hosted.graphql.ts';

/** Hosted payment links (`/p/{token}` and the iframe SDK's API). */
export const hostedModule: GatewayModule = {
  name: 'hosted',
  routes: hostedRoutes,
};
