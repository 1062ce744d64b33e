// A resource's capacity over a replication: shift calendars, and servers that fail and are repaired (breakdowns).
import type { Replication } from './state.ts';
import { ServiceError } from '../../errors.ts';
import { CLOCK_BUSY, PREEMPT_RESUME } from '../model.ts';
import { EVENT_FAILURE, EVENT_REPAIR, EVENT_SHIFT } from '../engineLayout.ts';

export const capacityMethods = {
  // ---- capacity ----

  initialiseCapacity(resource: number): void {
    const spec = this.model.resources[resource]!;
    if (!spec.capacityBySlot) {
      this.capacity[resource] = spec.capacity;
      return;
    }
    this.capacity[resource] = spec.capacityBySlot[0]!;
    if (this.capacityChangeHours[resource]!.length > 0) this.scheduleCapacityChange(resource, 0);
  },

  /** Schedules the first capacity change strictly after the absolute slot `afterSlot` (slot 0 = Monday 00:00; an hour or a minute). */
  scheduleCapacityChange(resource: number, afterSlot: number): void {
    const changes = this.capacityChangeHours[resource]!;
    const spec = this.model.resources[resource]!;
    const slotsPerWeek = spec.capacityBySlot!.length;
    const week = Math.floor(afterSlot / slotsPerWeek);
    let next = (week + 1) * slotsPerWeek + changes[0]!;
    for (let k = 0; k < changes.length; k++) {
      const candidate = week * slotsPerWeek + changes[k]!;
      if (candidate > afterSlot) {
        next = candidate;
        break;
      }
    }
    this.schedule((next * this.model.unitsPerHour) / spec.slotsPerHour, EVENT_SHIFT, resource, next);
  },

  onCapacityChange(resource: number, slot: number): void {
    this.touch(resource);
    const bySlot = this.model.resources[resource]!.capacityBySlot!;
    this.capacity[resource] = bySlot[slot % bySlot.length]!;
    this.counts.capacity_changes++;
    if (this.trace) this.record('capacity', null, null, this.model.resources[resource]!.id, this.capacity[resource]!);
    this.scheduleCapacityChange(resource, slot);
    this.dispatch(resource);
  },

  // ---- breakdowns ----

  initialiseServers(resource: number): void {
    const spec = this.model.resources[resource]!;
    const breakdowns = spec.breakdowns!;
    const base = this.serverBase[resource]!;
    const idle: number[] = [];
    for (let server = base + spec.capacity - 1; server >= base; server--) {
      idle.push(server);
      const timeToFailure = this.sample(breakdowns.timeToFailure, this.failureStreams[resource]!);
      if (breakdowns.clock === CLOCK_BUSY) this.serverTimeToFailure[server] = timeToFailure;
      else this.schedule(timeToFailure, EVENT_FAILURE, server, this.serverToken[server]!);
    }
    this.idleServers[resource] = idle;
  },

  /** Puts an entity starting service on an idle working server; on the busy clock, plans the failure if it falls within this service. */
  assignServer(entity: number, resource: number, end: number): void {
    const server = this.idleServers[resource]!.pop();
    if (server === undefined) throw new ServiceError('INTERNAL', 'a service started at a resource with no idle working server');
    this.serverEntity[server] = entity;
    this.entityServer[entity] = server;
    if (this.model.resources[resource]!.breakdowns!.clock !== CLOCK_BUSY) return;
    this.serverServiceStart[server] = this.now;
    const token = ++this.serverToken[server]!;
    if (this.now + this.serverTimeToFailure[server]! < end) this.schedule(this.now + this.serverTimeToFailure[server]!, EVENT_FAILURE, server, token);
  },

  /** The entity's service ended or was displaced: its server is idle again (the busy clock keeps the serving time left). */
  freeServer(entity: number, resource: number): void {
    const server = this.entityServer[entity]!;
    this.entityServer[entity] = -1;
    this.serverEntity[server] = -1;
    if (this.model.resources[resource]!.breakdowns!.clock === CLOCK_BUSY) {
      this.serverTimeToFailure[server]! -= this.now - this.serverServiceStart[server]!;
      this.serverToken[server]!++;
    }
    this.idleServers[resource]!.push(server);
  },

  onFailure(server: number): void {
    const resource = this.serverResource[server]!;
    const breakdowns = this.model.resources[resource]!.breakdowns!;
    this.touch(resource);
    this.capacity[resource]!--;
    this.counts.breakdowns++;
    const entity = this.serverEntity[server]!;
    if (entity >= 0) {
      // The entity in service is interrupted: it waits first in line and resumes (or restarts) on the next working server.
      const inService = this.inService[resource]!;
      inService.splice(inService.indexOf(entity), 1);
      this.serverEntity[server] = -1;
      this.entityServer[entity] = -1;
      this.busy[resource]!--;
      if (breakdowns.interrupted === PREEMPT_RESUME) this.entityRemaining[entity] = this.entityServiceEnd[entity]! - this.now;
      this.enqueue(entity, this.entityStep[entity]!, -1);
    } else {
      const idle = this.idleServers[resource]!;
      idle.splice(idle.indexOf(server), 1);
    }
    if (this.trace) this.record('capacity', null, null, this.model.resources[resource]!.id, this.capacity[resource]!);
    this.schedule(this.now + this.sample(breakdowns.repair, this.repairStreams[resource]!), EVENT_REPAIR, server, 0);
  },

  onRepair(server: number): void {
    const resource = this.serverResource[server]!;
    const breakdowns = this.model.resources[resource]!.breakdowns!;
    this.touch(resource);
    this.capacity[resource]!++;
    this.counts.repairs++;
    this.idleServers[resource]!.push(server);
    const timeToFailure = this.sample(breakdowns.timeToFailure, this.failureStreams[resource]!);
    if (breakdowns.clock === CLOCK_BUSY) this.serverTimeToFailure[server] = timeToFailure;
    else this.schedule(this.now + timeToFailure, EVENT_FAILURE, server, this.serverToken[server]!);
    if (this.trace) this.record('capacity', null, null, this.model.resources[resource]!.id, this.capacity[resource]!);
    this.dispatch(resource);
  },
} satisfies ThisType<Replication>;

export type CapacityMethods = typeof capacityMethods;
