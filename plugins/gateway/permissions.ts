/**
 * The administration key. The kernel declares it (with the spec's other broad keys), because two
 * plugins serve gateway administration: this one (endpoints, routes) and client-api (API clients).
 */
export const GATEWAY_MANAGE = 'gateway:manage';
