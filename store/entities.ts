// MikroORM entities (defineEntity, no decorators). Rooms with plain row shapes map them here;
// the ledger and other set-based rules use SQL through store/db.ts.
import { defineEntity, p } from '@mikro-orm/core';

export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.string().primary(),
    email: p.string(),
    password_hash: p.string().hidden(),
    created_at: p.datetime(),
  },
});

export const Organization = defineEntity({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: p.string().primary(),
    name: p.string(),
    created_at: p.datetime(),
  },
});

export const Membership = defineEntity({
  name: 'Membership',
  tableName: 'memberships',
  properties: {
    id: p.string().primary(),
    org_id: p.string(),
    user_id: p.string(),
    role: p.string(),
    created_at: p.datetime(),
  },
});

export const Project = defineEntity({
  name: 'Project',
  tableName: 'projects',
  properties: {
    id: p.string().primary(),
    org_id: p.string(),
    title: p.string(),
    created_by: p.string(),
    created_at: p.datetime(),
  },
});

export const entities = [User, Organization, Membership, Project];
